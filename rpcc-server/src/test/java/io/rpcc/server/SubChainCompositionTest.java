package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SubChain;
import io.rpcc.server.internal.HopExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Composition of a chain with its sub-chains (paper 3.4, Fig. 5c) on real nodes, each on an executor
 * of ONE thread: composed, the node where a sub-chain ends runs the parent's chaining function
 * itself and the chain goes on from there; not composed, the result goes back to the creator first.
 * Both give the same result, path, hop numbers and replies (in interactive mode too); composed, the
 * creators receive nothing more than their own hop (counted in frames and in returns); the switch
 * works per call ({@link SubChain#composition}) and per server
 * ({@code RpccServer.Builder.subChainComposition}), the call's winning.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SubChainCompositionTest {
    static Cluster cluster;
    static RpccClient client;
    static final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    static final List<ExecutorService> executors = new ArrayList<>();

    /**
     * Params {@code "s/rest"}: reply (unless the chain's metadata has {@value #QUIET}), then return the sub-chain {@code chainTo(rest)} at server s,
     * without a chaining function (its result is this hop's); {@code ""}: {@code "leaf@<node>"}.
     * Composed as the chain's metadata says ({@link SubChainTest#composition}).
     */
    static Object chainTo(Object params) {
        String spec = (String) params;
        ChainContext ctx = ChainContext.current();
        if (spec.isEmpty()) {
            return "leaf@" + ctx.node();
        }
        if (ctx.metadata().get(QUIET) == null) {
            ctx.preturn("chainTo@" + ctx.node() + "#" + ctx.hop());
        }
        int slash = spec.indexOf('/');
        String head = slash < 0 ? spec : spec.substring(0, slash);
        String rest = slash < 0 ? "" : spec.substring(slash + 1);
        return SubChainTest.composition(SubChain.to(head, "chainTo").params(rest));
    }

    /** Metadata key: the hops send no partial replies (so their originator sends them no window updates). */
    static final String QUIET = "quiet";

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("a", "b", "c", "d", "n")) {
            ExecutorService one = Executors.newSingleThreadExecutor();
            executors.add(one);
            servers.put(name, cluster.server(name, b -> b.executor(one)
                    .subChainComposition(!name.equals("n")) // n returns every sub-chain's result to itself
                    .service("chainTo", SubChainCompositionTest::chainTo)
                    .service("tag", p -> p + "+" + ChainContext.current().node())));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        executors.forEach(ExecutorService::shutdownNow);
    }

    /** A chain whose first hop is chainTo(spec) at {@code first}; the parent's chaining function tags at d. */
    static ChainCall chain(String first, String spec) {
        return ChainCall.to(first, "chainTo").params(spec).chainingFunction(SubChainTest.PARENT)
                .state(ChainState.of("tagAt", "d")).timeout(Duration.ofSeconds(20));
    }

    /** The service functions' hops: number, host and function (a return's entry is not a hop). */
    static List<String> hops(ChainResult r) {
        return r.timings().stream().filter(t -> !t.serviceFunction().equals(HopExecutor.RETURN))
                .map(t -> t.hop() + ":" + t.host() + ":" + t.serviceFunction()).toList();
    }

    @ParameterizedTest(name = "{0}{1}, interactive={3}")
    @CsvSource({
        "a, b, 'a,b,d', false",
        "a, b/c, 'a,b,c,d', false",          // depth 2: c pops b's point, then a's, and runs a's function
        "a, b/a, 'a,b,a,d', false",          // re-enters a (one thread) inside a's own sub-chain
        "a, b/a/b/c, 'a,b,a,b,c,d', false",  // depth 4, re-entering both creators
        "n, b/c, 'n,b,c,d', false",          // n does not compose unless the call says so
        "a, b/c, 'a,b,c,d', true",
        "n, b/a, 'n,b,a,d', true",
    })
    void composedAndReturnedSubChainsGiveTheSameResultPathHopsAndReplies(String first, String spec, String path,
                                                                        boolean interactive) {
        ChainResult composed = client.runChain(chain(first, spec).metadata(SubChainTest.COMPOSITION, "on")
                .interactive(interactive));
        ChainResult returned = client.runChain(chain(first, spec).metadata(SubChainTest.COMPOSITION, "off")
                .interactive(interactive));
        String leaf = "leaf@" + path.split(",")[path.split(",").length - 2];
        assertEquals(leaf + "+d", composed.value());
        assertEquals(List.of(path.split(",")), composed.path());
        assertEquals(returned.value(), composed.value());
        assertEquals(returned.path(), composed.path());
        assertEquals(hops(returned), hops(composed));
        assertEquals(returned.replies().stream().sorted().toList(), composed.replies().stream().sorted().toList());
        assertEquals(spec.split("/").length, composed.replies().size(), "one reply per creator");
    }

    @Test
    void aComposedSubChainsResultDoesNotPassThroughItsCreators() {
        for (String on : List.of("on", "off")) { // connections open, functions compiled
            client.runChain(chain("a", "b/c").metadata(SubChainTest.COMPOSITION, on).metadata(QUIET, "yes"));
        }
        // composed: c ends b's sub-chain (a's, nested) and runs a's chaining function itself; a and b
        // receive only their own hop's request
        long[] before = counts();
        assertEquals("leaf@c+d", client.runChain(chain("a", "b/c").metadata(SubChainTest.COMPOSITION, "on")
                .metadata(QUIET, "yes")).value());
        long[] composed = since(before);
        assertEquals(List.of(1L, 1L, 1L, 0L, 0L, 0L), List.of(composed[0], composed[1], composed[2], composed[3],
                composed[4], composed[5]), "frames received by a, b, c; returns received by a, b, c");
        // returned: the result comes back to b, then to a, each one request more
        before = counts();
        assertEquals("leaf@c+d", client.runChain(chain("a", "b/c").metadata(SubChainTest.COMPOSITION, "off")
                .metadata(QUIET, "yes")).value());
        long[] returned = since(before);
        assertEquals(List.of(2L, 2L, 1L, 1L, 1L, 0L), List.of(returned[0], returned[1], returned[2], returned[3],
                returned[4], returned[5]), "frames received by a, b, c; returns received by a, b, c");
    }

    @Test
    void theServersSwitchHoldsUnlessTheSubChainSaysOtherwise() {
        client.runChain(chain("n", "b")); // warm
        client.runChain(chain("a", "b"));
        RpccServer n = servers.get("n");
        RpccServer a = servers.get("a");
        long nBefore = n.subChainReturns();
        long aBefore = a.subChainReturns();
        assertEquals("leaf@b+d", client.runChain(chain("n", "b")).value());
        assertEquals(nBefore + 1, n.subChainReturns(), "n does not compose: b's result came back to n");
        assertEquals("leaf@b+d", client.runChain(chain("n", "b").metadata(SubChainTest.COMPOSITION, "on")).value());
        assertEquals(nBefore + 1, n.subChainReturns(), "the sub-chain's composition(true) wins over n's setting");
        assertEquals("leaf@b+d", client.runChain(chain("a", "b")).value());
        assertEquals(aBefore, a.subChainReturns(), "a composes by default");
        assertEquals("leaf@b+d", client.runChain(chain("a", "b").metadata(SubChainTest.COMPOSITION, "off")).value());
        assertEquals(aBefore + 1, a.subChainReturns(), "the sub-chain's composition(false) wins over a's default");
        assertEquals(0, servers.values().stream().mapToInt(RpccServer::parkedChains).sum(), "nothing stays parked");
    }

    @ParameterizedTest(name = "composition={0}")
    @CsvSource({"on, c", "off, a"})
    void aFailingParentChainingFunctionFailsWhereItRuns(String composition, String where) {
        ChainingFunctionSource failing = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class FailsOnLeaf implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        throw new IllegalStateException("no " + result);
                    }
                }
                """);
        ChainingFunctionException e = assertThrows(ChainingFunctionException.class, () -> client.runChain(
                chain("a", "b/c").chainingFunction(failing).metadata(SubChainTest.COMPOSITION, composition)));
        assertEquals(where, e.host(), e::getMessage);
        assertEquals(3, e.hop(), e::getMessage);
        assertEquals(List.of("a", "b", "c"), e.path());
        assertEquals("leaf@c+d", client.runChain(chain("a", "b/c")).value(), "the servers keep serving");
    }

    /** Frames received by a, b, c, then sub-chain results returned to a, b, c. */
    static long[] counts() {
        return new long[] {frames("a"), frames("b"), frames("c"), servers.get("a").subChainReturns(),
                servers.get("b").subChainReturns(), servers.get("c").subChainReturns()};
    }

    static long[] since(long[] before) {
        long[] now = counts();
        for (int i = 0; i < now.length; i++) {
            now[i] -= before[i];
        }
        return now;
    }

    static long frames(String server) {
        return servers.get(server).stats().framesReceived();
    }
}
