package io.rpcc.testkit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The checker on histories of real chains: a server's read-modify-write service run by concurrent clients
 * over sockets, recorded the way a test of atomic chains records them (the service returns what it read,
 * the server logs each install, the client records the outcome). Done under a lock it passes; done without
 * one, two chains that read the same version (held together by a barrier) make a lost update, and the
 * checker names it.
 */
class HistoryOnNodesTest {
    @RegisterExtension
    static final WanCluster lab = WanCluster.of(WanTopology.builder().site("lab")
            .intraSite(Duration.ofMillis(1), 1_000_000_000).build());
    static RpccClient client;

    /** The server's state: plain, not transactional. */
    static final Map<String, String> store = new ConcurrentHashMap<>();
    static final Object lock = new Object();
    static volatile History history = new History();
    static volatile CyclicBarrier barrier = new CyclicBarrier(2);

    /** "tx key" to what the service read of the key ("" for no value), after writing tx:key. */
    private static Object readModifyWrite(Object params, boolean locked) throws Exception {
        String[] p = ((String) params).split(" ");
        String value = p[0] + ":" + p[1];
        if (locked) {
            synchronized (lock) {
                String seen = store.put(p[1], value);
                history.installed(p[1], value);
                return seen == null ? "" : seen;
            }
        }
        String seen = store.get(p[1]);
        barrier.await(10, TimeUnit.SECONDS); // both chains have read before either writes
        store.put(p[1], value);
        return seen == null ? "" : seen;
    }

    @BeforeAll
    static void start() {
        lab.server("store", "lab", b -> b.service("rmw", p -> {
            try {
                return readModifyWrite(p, true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).service("racy-rmw", p -> {
            try {
                return readModifyWrite(p, false);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
        client = lab.client("client", "lab");
    }

    /** Runs one transaction as a chain and records it as its client saw it. */
    private static void run(String service, String tx, String key) {
        Object seen = client.runChain(ChainCall.to("store", service).params(tx + " " + key)).value();
        history.read(tx, key, "".equals(seen) ? null : seen).write(tx, key, tx + ":" + key).committed(tx);
    }

    @Test
    void lockedReadModifyWritesAreSerializable() throws Exception {
        store.clear();
        history = new History();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            int client = c;
            done.add(clients.submit(() -> {
                for (int i = 0; i < 50; i++) {
                    run("rmw", "C" + client + "-" + i, "k" + (i % 3));
                }
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        clients.shutdown();
        store.forEach(history::finalState);
        Verdict v = SerializabilityChecker.check(history);
        System.out.println(v);
        v.assertOk();
        assertEquals(200, v.committed());
    }

    @Test
    void unlockedReadModifyWritesLoseAnUpdate() throws Exception {
        store.clear();
        history = new History();
        barrier = new CyclicBarrier(2);
        ExecutorService clients = Executors.newFixedThreadPool(2);
        Future<?> one = clients.submit(() -> run("racy-rmw", "T1", "x"));
        Future<?> two = clients.submit(() -> run("racy-rmw", "T2", "x"));
        one.get(30, TimeUnit.SECONDS);
        two.get(30, TimeUnit.SECONDS);
        clients.shutdown();
        store.forEach(history::finalState);
        Verdict v = SerializabilityChecker.check(history);
        System.out.println(v);
        assertFalse(v.ok());
        Anomaly lost = v.of(Anomaly.Kind.LOST_UPDATE).get(0);
        assertEquals(List.of("x"), lost.keys());
        assertTrue(lost.transactions().containsAll(List.of("T1", "T2")), lost.toString());
    }
}
