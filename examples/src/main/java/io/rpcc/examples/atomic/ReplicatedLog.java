package io.rpcc.examples.atomic;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.server.RpccServer;
import io.rpcc.server.atomic.TxVar;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Waldo's replicated log (section 3.5, figure 2): replicas that keep one log each, and an append that a
 * majority of them must take, as one atomic chain ({@code chains/MajorityAppend.java}): either every
 * replica that was reached appends the entry, or none does. Replicas that are down are skipped, like
 * Waldo's caught network exceptions; with too few left the append aborts everywhere.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar replicated-log
 * </pre>
 */
public final class ReplicatedLog implements AutoCloseable {
    private final WanCluster wan = WanCluster.of(WanTopology.paperFigure7());
    private final Map<String, TxVar<List<String>>> logs = new LinkedHashMap<>();
    private final RpccClient client;
    private final ChainingFunctionSource majority =
            ChainingFunctionSource.javaResource(ReplicatedLog.class, "/chains/MajorityAppend.java");

    /** {@code n} replicas, {@code log-1} to {@code log-n}, spread over the emulated sites. */
    public ReplicatedLog(int n) {
        List<String> sites = WanTopology.paperFigure7().sites();
        for (int i = 1; i <= n; i++) {
            String name = "log-" + i;
            TxVar<List<String>> log = TxVar.of(name, List.of());
            logs.put(name, log);
            wan.server(name, sites.get(i % sites.size()), b -> serve(b, log));
        }
        client = wan.client("writer", sites.get(0));
    }

    private static RpccServer.Builder serve(RpccServer.Builder b, TxVar<List<String>> log) {
        return b.service("begin", entry -> entry)
                .service("append", entry -> {
                    List<String> longer = log.update(l -> {
                        List<String> copy = new ArrayList<>(l);
                        copy.add((String) entry);
                        return List.copyOf(copy);
                    });
                    return longer.size();
                });
    }

    /** Appends {@code entry} through replica {@code root}: the log's length there, or the abort's failure. */
    public int append(String root, String entry) {
        List<String> others = new ArrayList<>(logs.keySet());
        others.remove(root);
        ChainCall call = ChainCall.to(root, "begin").params(entry).chainingFunction(majority)
                .state(ChainState.of("step", "split").with("root", root).with("replicas", others))
                .timeout(Duration.ofSeconds(30)).atomic();
        return (Integer) client.runChain(call).value();
    }

    /** Stops replica {@code name} (it is down from now on). */
    public void kill(String name) {
        wan.kill(name);
    }

    /** Each replica's committed log. */
    public Map<String, List<String>> logs() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        logs.forEach((name, log) -> m.put(name, log.committed()));
        return m;
    }

    @Override
    public void close() {
        wan.close();
    }

    public static void main(String[] args) {
        try (ReplicatedLog log = new ReplicatedLog(5)) {
            System.out.println("append 'a' with all 5 replicas up: length " + log.append("log-1", "a"));
            log.kill("log-4");
            log.kill("log-5");
            System.out.println("append 'b' with 3 of 5 up: length " + log.append("log-1", "b"));
            log.kill("log-3");
            try {
                log.append("log-1", "c");
                throw new IllegalStateException("'c' was appended with 2 of 5 replicas up");
            } catch (RuntimeException aborted) {
                System.out.println("append 'c' with 2 of 5 up: aborted: " + aborted.getMessage());
            }
            System.out.println("logs: " + log.logs());
        }
    }
}
