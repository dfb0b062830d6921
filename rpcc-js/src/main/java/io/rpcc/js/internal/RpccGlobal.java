package io.rpcc.js.internal;

import io.rpcc.core.ChainContext;
import io.rpcc.core.NextHop;
import java.util.List;
import java.util.Map;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.graalvm.polyglot.proxy.ProxyObject;

/**
 * The {@code rpcc} object that JavaScript chaining functions use:
 *
 * <pre>
 * rpcc.call(server, serviceFunction, params, state)   // next hop, same chaining function
 * rpcc.callThenEnd(server, serviceFunction, params)   // next hop; its result ends the chain
 * rpcc.end(result)                                    // end of the chain
 * rpcc.preturn(reply)                                 // a client response (partial reply)
 * rpcc.console(text)                                  // a line on the virtual console
 * rpcc.node, rpcc.hop                                 // where this runs
 * </pre>
 */
final class RpccGlobal implements ProxyObject {
    /** A next hop built by a script: recognized when the function returns it. */
    record HopView(NextHop hop) implements JsValues.ReadOnlyObject {
        @Override
        public Object host() {
            return hop;
        }
    }

    private static final List<String> KEYS = List.of("call", "callThenEnd", "end", "preturn", "console", "node", "hop");

    private final Map<String, Object> members;

    RpccGlobal(ChainContext ctx) {
        this.members = Map.of(
                "call", (ProxyExecutable) a -> {
                    need(a, 3, "rpcc.call(server, serviceFunction, params[, state])");
                    return new HopView(NextHop.call(a[0].asString(), a[1].asString(), JsValues.toHost(a[2]),
                            a.length > 3 ? JsValues.toState(a[3]) : null));
                },
                "callThenEnd", (ProxyExecutable) a -> {
                    need(a, 3, "rpcc.callThenEnd(server, serviceFunction, params)");
                    return new HopView(NextHop.callThenEnd(a[0].asString(), a[1].asString(), JsValues.toHost(a[2])));
                },
                "end", (ProxyExecutable) a -> new HopView(NextHop.end(a.length > 0 ? JsValues.toHost(a[0]) : null)),
                "preturn", (ProxyExecutable) a -> {
                    need(a, 1, "rpcc.preturn(reply)");
                    chain(ctx).preturn(JsValues.toHost(a[0]));
                    return null;
                },
                "console", (ProxyExecutable) a -> {
                    StringBuilder line = new StringBuilder();
                    for (Value v : a) {
                        line.append(line.isEmpty() ? "" : " ").append(v.isString() ? v.asString() : v.toString());
                    }
                    chain(ctx).console().println(line);
                    return null;
                },
                "node", ctx == null ? "" : ctx.node(),
                "hop", ctx == null ? 0 : ctx.hop());
    }

    private static ChainContext chain(ChainContext ctx) {
        if (ctx == null) {
            throw new IllegalStateException("not running in a chain");
        }
        return ctx;
    }

    private static void need(Value[] args, int n, String usage) {
        if (args.length < n) {
            throw new IllegalArgumentException("usage: " + usage);
        }
    }

    @Override
    public Object getMember(String key) {
        return members.get(key);
    }

    @Override
    public Object getMemberKeys() {
        return org.graalvm.polyglot.proxy.ProxyArray.fromList(new java.util.ArrayList<>(KEYS));
    }

    @Override
    public boolean hasMember(String key) {
        return members.containsKey(key);
    }

    @Override
    public void putMember(String key, Value value) {
        throw new UnsupportedOperationException("rpcc is read-only");
    }
}
