package io.rpcc.benchmarks;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import java.util.Arrays;

/**
 * The first chain of a fresh JVM, with a chaining function in {@code java} or {@code js}, against
 * the same chain warm: one server and one client started in this JVM, the first chain's latency,
 * then the median (and 90th percentile) of 50 more with new states (the function cached), and one chain with another new
 * function (a cache miss in a warm JVM: what the first chain cannot beat). With {@code idle} the chain
 * comes a while after the node started (once its background warm-ups of javac, GraalJS and the chain path are over,
 * or after 20 s), as a node that is not hit in its first second sees it; without it, at once. With
 * {@code known}, as {@code idle}, and the function is one the server knows at start
 * ({@code precompileFunctions}): compiled by the node in the background, so the first chain finds it cached.
 *
 * <pre>
 * java -cp rpcc-benchmarks.jar io.rpcc.benchmarks.FirstChainLatency java|js [idle|known]
 * </pre>
 *
 * Each run is one fresh JVM: run it a few times and compare (a single-shot measurement, not JMH's).
 */
public final class FirstChainLatency {
    private FirstChainLatency() {
    }

    public static void main(String[] args) throws Exception {
        boolean js = args.length > 0 && args[0].equals("js");
        boolean idle = args.length > 1 && (args[1].equals("idle") || args[1].equals("known"));
        boolean known = args.length > 1 && args[1].equals("known");
        ChainingFunctionSource f = function(js, "first");
        StaticNameResolver names = new StaticNameResolver();
        RpccServer.Builder builder = RpccServer.builder("first").resolver(names).service("echo", p -> p);
        if (known) {
            builder.precompileFunctions(f); // as a node whose services' chaining functions are known at start
        }
        try (RpccServer server = builder.build().start();
             RpccClient client = RpccClient.builder().resolver(names).build().start()) {
            names.register("first", server.address());
            client.call("first", "echo", "connect").join(); // the connection is not what is measured
            if (idle) {
                long until = System.nanoTime() + 20_000_000_000L;
                while (warmUpRunning() && System.nanoTime() < until) {
                    Thread.sleep(10);
                }
            }
            long t0 = System.nanoTime();
            client.runChain("first", "echo", "x", f, ChainState.empty());
            long first = System.nanoTime() - t0;
            long[] warm = new long[50];
            for (int i = 0; i < warm.length; i++) {
                long t = System.nanoTime();
                client.runChain("first", "echo", "x", f, ChainState.of("i", i));
                warm[i] = System.nanoTime() - t;
            }
            Arrays.sort(warm);
            long t1 = System.nanoTime();
            client.runChain("first", "echo", "x", function(js, "another"), ChainState.empty());
            long anotherNew = System.nanoTime() - t1;
            System.out.printf("%s%s: first chain %.1f ms, warm chain (median of 50) %.2f ms (p90 %.2f ms), ratio %.1f; "
                    + "a chain with another new function, now %.1f ms%n", js ? "js" : "java", known ? " known" : idle ? " idle" : "",
                    first / 1e6, warm[25] / 1e6, warm[45] / 1e6, (double) first / warm[25], anotherNew / 1e6);
            if (known && server.stats().functionCacheMisses() != 2) {
                System.out.println("(the known function was not compiled at start: " + server.stats() + ")");
            }
        }
    }

    /** A trivial function in Java or JavaScript, made distinct by {@code salt}. */
    private static ChainingFunctionSource function(boolean js, String salt) {
        return js ? ChainingFunctionSource.javascript("// " + salt + "\n(state, result) => rpcc.end(result + '!')")
                : ChainingFunctionSource.java("""
                        import io.rpcc.core.*;
                        /** %s */
                        public class First implements ChainingFunction {
                            public NextHop apply(ChainState state, Object result) {
                                return NextHop.end(result + "!");
                            }
                        }
                        """.formatted(salt));
    }

    private static boolean warmUpRunning() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("rpcc-function-warm-up")
                || t.getName().startsWith("rpcc-function-precompile-") || t.getName().equals("rpcc-chain-warm-up"));
    }
}
