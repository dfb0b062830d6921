package io.rpcc.js;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Split and merge from a JavaScript chaining function: {@code rpcc.split} fans a query out to three
 * shards (one of which fails), the same function merges their outcomes at the merge host, and the
 * default merge returns the list of results; chain and interactive mode agree.
 */
class JsSplitMergeTest {
    static final StaticNameResolver names = new StaticNameResolver();
    static final List<AutoCloseable> nodes = new ArrayList<>();
    static RpccClient client;

    static final ChainingFunctionSource SEARCH = ChainingFunctionSource.javascript("""
            (state, result) => {
                if (state.step === 'split') {
                    const hops = state.shards.map(s => rpcc.callThenEnd(s, 'search', result));
                    return state.merge === 'fn' ? rpcc.split(hops, 'merger', {step: 'merge'}) : rpcc.split(hops, 'merger');
                }
                rpcc.console('merging ' + result.length + ' outcomes at ' + rpcc.node);
                return rpcc.end(result.map(o => o.failed ? 'failed ' + o.branch + ': ' + (o.error.indexOf('no shard') >= 0)
                        : o.value).join('|'));
            }
            """);

    static void server(String name, RpccServer.Builder b) {
        RpccServer s = b.resolver(names).build().start();
        names.register(name, s.address());
        nodes.add(s);
    }

    @BeforeAll
    static void start() {
        server("front", RpccServer.builder("front").service("parse", p -> ((String) p).trim()));
        for (String shard : List.of("s1", "s2", "s3")) {
            server(shard, RpccServer.builder(shard).service("search", p -> {
                if (shard.equals("s2") && p.equals("fail")) {
                    throw new IllegalStateException("no shard " + shard);
                }
                return p + "@" + ChainContext.current().node() + "#" + ChainContext.current().branch();
            }));
        }
        server("merger", RpccServer.builder("merger"));
        client = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(30)).build().start();
        nodes.add(client);
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable n : nodes) {
            n.close();
        }
    }

    static ChainCall search(String q, String merge) {
        return ChainCall.to("front", "parse").params(" " + q + " ").chainingFunction(SEARCH)
                .state(ChainState.of("step", "split", "shards", List.of("s1", "s2", "s3"), "merge", merge));
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aJavaScriptFunctionSplitsAndMerges(boolean interactive) {
        ChainResult r = client.runChain(search("q", "fn").interactive(interactive));
        assertEquals("q@s1#1|q@s2#2|q@s3#3", r.value());
        assertEquals(List.of("front", "s1", "s2", "s3"), r.path());
        ChainResult failed = client.runChain(search("fail", "fn").interactive(interactive));
        assertEquals("fail@s1#1|failed 2: true|fail@s3#3", failed.value());
        ChainResult list = client.runChain(search("q", "default").interactive(interactive));
        assertEquals(List.of("q@s1#1", "q@s2#2", "q@s3#3"), list.value());
    }
}
