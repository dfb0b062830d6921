package io.rpcc.js;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** JavaScript chaining functions: the same chain in Java and in JavaScript gives the same result. */
public class JsChainTest {
    public record Order(String id, String country, int quantity) {
    }

    static final StaticNameResolver names = new StaticNameResolver();
    static final List<AutoCloseable> nodes = new ArrayList<>();
    static final TypeRegistry types = TypeRegistry.of(Order.class);
    static RpccClient client;

    static final ChainingFunctionSource JAVA_ROUTE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import io.rpcc.js.JsChainTest.Order;
            public class Route implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    Order order = state.get("order", Order.class);
                    String step = state.get("step", String.class);
                    ChainContext.current().console().println("step " + step + " got " + result);
                    if (step.equals("region")) {
                        return NextHop.call("inventory-" + result, "stock", order, state.with("step", "stock"));
                    }
                    if (step.equals("stock")) {
                        return NextHop.call("pricing", "quote", List.of(order.quantity(), (Integer) result),
                                state.with("step", "quote"));
                    }
                    return NextHop.end(order.id() + "=" + result);
                }
            }
            """.replace("List.of", "java.util.List.of"));

    static final ChainingFunctionSource JS_ROUTE = ChainingFunctionSource.javascript("""
            (state, result) => {
                rpcc.console('step ' + state.step + ' got ' + result);
                if (state.step === 'region') {
                    return rpcc.call('inventory-' + result, 'stock', state.order, {...state, step: 'stock'});
                }
                if (state.step === 'stock') {
                    return rpcc.call('pricing', 'quote', [state.order.quantity, result], {...state, step: 'quote'});
                }
                return rpcc.end(state.order.id + '=' + result);
            }
            """);

    static void server(String name, RpccServer.Builder b) {
        RpccServer s = b.resolver(names).types(types).build().start();
        names.register(name, s.address());
        nodes.add(s);
    }

    @BeforeAll
    static void start() {
        server("gateway", RpccServer.builder("gateway").service("region",
                p -> ((Order) p).country().equals("FR") ? "eu" : "us"));
        server("inventory-eu", RpccServer.builder("inventory-eu").service("stock", p -> 7));
        server("inventory-us", RpccServer.builder("inventory-us").service("stock", p -> 42));
        server("pricing", RpccServer.builder("pricing").service("quote", p -> {
            List<?> qs = (List<?>) p;
            ChainContext.current().console().println("pricing " + qs);
            return (Integer) qs.get(0) * 100 + (Integer) qs.get(1);
        }));
        client = RpccClient.builder().resolver(names).types(types).timeout(Duration.ofSeconds(30)).build().start();
        nodes.add(client);
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable n : nodes) {
            n.close();
        }
    }

    @Test
    void javaAndJavaScriptVersionsOfTheSameChainAgree() {
        for (Order order : List.of(new Order("o1", "FR", 2), new Order("o2", "US", 3))) {
            ChainState state = ChainState.of("order", order, "step", "region");
            ChainResult java = client.runChain("gateway", "region", order, JAVA_ROUTE, state);
            ChainResult js = client.runChain("gateway", "region", order, JS_ROUTE, state);
            ChainResult jsInteractive = client.runChain(ChainCall.to("gateway", "region").params(order)
                    .chainingFunction(JS_ROUTE).state(state).interactive(true));
            assertEquals(java.value(), js.value());
            assertEquals(java.value(), jsInteractive.value());
            assertEquals(java.path(), js.path());
            assertEquals(java.console().stream().map(ConsoleLine::text).toList(),
                    js.console().stream().map(ConsoleLine::text).toList());
        }
        assertEquals("o1=207", client.runChain("gateway", "region", new Order("o1", "FR", 2), JS_ROUTE,
                ChainState.of("order", new Order("o1", "FR", 2), "step", "region")).value());
    }

    @Test
    void valuesMapBothWays() {
        ChainingFunctionSource echo = ChainingFunctionSource.javascript("""
                (state, result) => rpcc.end({
                    int: 41 + 1, long: 2 ** 40, double: 1.5, text: 'a' + state.s, flag: !state.b,
                    list: [1, 'two', null], nested: {k: state.list[1]}, record: state.order,
                    keys: Object.keys(state.order), rpccKeys: Object.keys(rpcc).length
                })
                """);
        Order order = new Order("o9", "US", 1);
        Object v = client.runChain("gateway", "region", order, echo,
                ChainState.of("s", "b", "b", false, "list", List.of(1, 2, 3), "order", order)).value();
        java.util.Map<?, ?> m = (java.util.Map<?, ?>) v;
        assertEquals(42, m.get("int"));
        assertEquals(1L << 40, m.get("long"));
        assertEquals(1.5, m.get("double"));
        assertEquals("ab", m.get("text"));
        assertEquals(true, m.get("flag"));
        assertEquals(java.util.Arrays.asList(1, "two", null), m.get("list"));
        assertEquals(java.util.Map.of("k", 2), m.get("nested"));
        assertEquals(order, m.get("record"), "a Java record passes through JavaScript unchanged");
        assertEquals(List.of("id", "country", "quantity"), m.get("keys"));
        assertEquals(8, m.get("rpccKeys"));
    }

    @Test
    void clientResponsesFromJavaScript() {
        ChainingFunctionSource progress = ChainingFunctionSource.javascript("""
                (state, result) => { rpcc.preturn('at ' + rpcc.node + ' hop ' + rpcc.hop); return rpcc.end(result); }
                """);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("gateway", "region")
                .params(new Order("o", "FR", 1)).chainingFunction(progress), String.class);
        assertEquals(List.of("at gateway hop 1"), replies.stream().toList());
        assertEquals("eu", replies.result().join().value());
    }

    @Test
    void syntaxErrorsComeBackWithLineAndColumn() {
        ChainingFunctionSource broken = ChainingFunctionSource.javascript("(state, result) => {\n  return rpcc.end(;\n}");
        ChainingFunctionCompileException e = assertThrows(ChainingFunctionCompileException.class,
                () -> client.runChain("gateway", "region", new Order("o", "FR", 1), broken, ChainState.empty()));
        assertEquals(2, e.diagnostics().get(0).line());
        assertEquals("gateway", e.host());
    }

    @Test
    void scriptErrorsAreTyped() {
        ChainingFunctionSource thrower = ChainingFunctionSource.javascript(
                "(state, result) => { throw new TypeError('bad ' + result); }");
        ChainException e = assertThrows(ChainException.class,
                () -> client.runChain("gateway", "region", new Order("o", "FR", 1), thrower, ChainState.empty()));
        ChainingFunctionException c = assertInstanceOf(ChainingFunctionException.class, e);
        assertEquals("js:TypeError", c.exceptionName());
        assertTrue(c.remoteMessage().contains("bad eu"), c.remoteMessage());
    }
}
