package io.rpcc.js.internal;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.spi.FunctionText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyArray;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.graalvm.polyglot.proxy.ProxyObject;

/**
 * The {@code rpcc} object that JavaScript chaining functions use, and all of the rpcc API they
 * see (a deliberate subset: no resources, no threads, no executor, nothing of the node itself):
 *
 * <pre>
 * rpcc.call(server, serviceFunction, params, state)   // next hop, same chaining function
 * rpcc.callThenEnd(server, serviceFunction, params)   // next hop; its result ends the chain
 * rpcc.end(result)                                    // end of the chain
 * rpcc.split([hop, hop, ...], mergeServer[, state])   // branches at once; merged at mergeServer (null: here)
 *                                                     //   by this function with state, or without state by
 *                                                     //   the default merge (the list of results)
 * rpcc.preturn(reply)                                 // a client response (partial reply)
 * rpcc.console(text)                                  // a line on the virtual console
 * rpcc.node, rpcc.hop                                 // where this runs
 * </pre>
 *
 * Every member is a JavaScript function or a string or number: no Java object, so no Java method,
 * is reachable from it. Arguments are turned into Java values at the call, inside the budget.
 */
final class RpccGlobal implements ProxyObject {
    /** The longest console line kept, in chars (longer ones are cut, saying how long they were). */
    static final int MAX_CONSOLE_LINE_CHARS = 16 * 1024;

    /** A next hop built by a script: recognized when the function returns it. */
    record HopView(NextHop hop, Invocation invocation) implements JsValues.ReadOnlyObject {
        @Override
        public Object host() {
            return hop;
        }
    }

    private static final List<String> KEYS = List.of("call", "callThenEnd", "end", "preturn", "console", "node", "hop",
            "split");

    private final Map<String, Object> members;
    private final Invocation invocation;

    RpccGlobal(ChainContext ctx, Invocation inv) {
        this.invocation = inv;
        this.members = Map.of(
                "call", (ProxyExecutable) a -> {
                    need(a, 3, "rpcc.call(server, serviceFunction, params[, state])");
                    return new HopView(NextHop.call(text(a[0]), text(a[1]), JsValues.toHost(a[2], inv),
                            a.length > 3 ? JsValues.toState(a[3], inv) : null), inv);
                },
                "callThenEnd", (ProxyExecutable) a -> {
                    need(a, 3, "rpcc.callThenEnd(server, serviceFunction, params)");
                    return new HopView(NextHop.callThenEnd(text(a[0]), text(a[1]), JsValues.toHost(a[2], inv)), inv);
                },
                "end", (ProxyExecutable) a -> new HopView(NextHop.end(a.length > 0 ? JsValues.toHost(a[0], inv) : null), inv),
                "split", (ProxyExecutable) a -> {
                    need(a, 2, "rpcc.split([rpcc.call(...), ...], mergeServer[, state])");
                    return new HopView(split(a, inv), inv);
                },
                "preturn", (ProxyExecutable) a -> {
                    need(a, 1, "rpcc.preturn(reply)");
                    chain(ctx).preturn(JsValues.toHost(a[0], inv));
                    return null;
                },
                "console", (ProxyExecutable) a -> {
                    StringBuilder line = new StringBuilder();
                    for (Value v : a) {
                        if (line.length() > MAX_CONSOLE_LINE_CHARS) {
                            break;
                        }
                        line.append(line.isEmpty() ? "" : " ").append(v.isString() ? v.asString() : v.toString());
                    }
                    chain(ctx).console().println(line.length() <= MAX_CONSOLE_LINE_CHARS ? line
                            : line.substring(0, MAX_CONSOLE_LINE_CHARS) + "… (cut at " + MAX_CONSOLE_LINE_CHARS + " chars)");
                    return null;
                },
                "node", ctx == null ? "" : ctx.node(),
                "hop", ctx == null ? 0 : ctx.hop());
    }

    /** The split {@code rpcc.split(branches, mergeServer[, state])} asks for. */
    private static NextHop.Split split(Value[] a, Invocation inv) {
        List<NextHop.Call> branches = new ArrayList<>();
        if (!(JsValues.toHost(a[0], inv) instanceof List<?> hops)) {
            throw new IllegalArgumentException("rpcc.split: the branches must be an array of rpcc.call(...) hops");
        }
        for (Object hop : hops) {
            if (!(hop instanceof NextHop.Call call)) {
                throw new IllegalArgumentException("rpcc.split: each branch must be an rpcc.call(...) or "
                        + "rpcc.callThenEnd(...) hop, got " + FunctionText.bounded(String.valueOf(hop)));
            }
            branches.add(call);
        }
        String mergeServer = a[1].isNull() ? null : text(a[1]);
        NextHop.Split split = NextHop.split(branches);
        return a.length > 2 ? split.mergeAt(mergeServer, ChainingFunctionSource.SAME, JsValues.toState(a[2], inv))
                : mergeServer == null ? split : split.mergeAt(mergeServer);
    }

    private static ChainContext chain(ChainContext ctx) {
        if (ctx == null) {
            throw new IllegalStateException("not running in a chain");
        }
        return ctx;
    }

    private static String text(Value v) {
        if (!v.isString()) {
            throw new IllegalArgumentException("a server or service function name must be a string, got "
                    + FunctionText.bounded(v.toString()));
        }
        return v.asString();
    }

    private static void need(Value[] args, int n, String usage) {
        if (args.length < n) {
            throw new IllegalArgumentException("usage: " + usage);
        }
    }

    @Override
    public Object getMember(String key) {
        JsValues.refuseReflective(key, invocation);
        return members.get(key);
    }

    @Override
    public Object getMemberKeys() {
        return ProxyArray.fromList(new ArrayList<>(KEYS));
    }

    @Override
    public boolean hasMember(String key) {
        JsValues.refuseReflective(key, invocation);
        return members.containsKey(key);
    }

    @Override
    public void putMember(String key, Value value) {
        throw JsValues.tampering("rpcc." + key, invocation);
    }

    @Override
    public boolean removeMember(String key) {
        throw JsValues.tampering("rpcc." + key, invocation);
    }
}
