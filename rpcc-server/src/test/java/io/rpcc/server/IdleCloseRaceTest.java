package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.Refusal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A chain started on a pooled connection at the moment a node lets that connection go as idle is
 * neither failed nor lost, on real nodes and sockets. Servers with a tiny idle timeout; clients that
 * call, wait a random time around that timeout (so that the next request meets the idle close, in
 * every interleaving), and call again, many times over. Before connections were let go gracefully
 * (GOAWAY), such a request failed at once ({@code HopUnreachableException: ... failed while sending:
 * StacklessClosedChannelException}) or was lost in the socket, its chain found broken only by the
 * client's timeout. Plaintext (each side sends on the connections it opened) and mutual TLS (nodes
 * send on connections their peers opened too). The number of rounds is {@code -Drpcc.idleRace.rounds}
 * (default 1,500 per test, a third of it over TLS).
 */
class IdleCloseRaceTest {
    private static final Duration IDLE = Duration.ofMillis(60);
    private static final int ROUNDS = Integer.getInteger("rpcc.idleRace.rounds", 1500);
    private static final int CLIENTS = 3;
    private Cluster cluster;
    /** Hops run: a request sent again must not run twice. */
    private final AtomicInteger runs = new AtomicInteger();

    @BeforeEach
    void start() {
        cluster = new Cluster();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void requestsRacingTheServersIdleCloseAllComplete() throws Exception {
        RpccServer server = cluster.server("idler", b -> b.idleTimeout(IDLE).service("echo", this::counted));
        race(server, "idler", b -> b, ROUNDS);
    }

    @Test
    void requestsRacingIdleClosesOnBothSidesAllComplete() throws Exception {
        RpccServer server = cluster.server("both", b -> b.idleTimeout(IDLE).service("echo", this::counted));
        race(server, "both", b -> b.idleTimeout(IDLE), ROUNDS);
    }

    @Test
    void requestsRacingIdleClosesOverMutualTlsAllComplete() throws Exception {
        // with TLS a node sends on connections its peers opened too (adopted), so both ways share one
        cluster.close();
        cluster = new Cluster(Cluster.Security.MUTUAL_TLS);
        RpccServer server = cluster.server("tls", b -> b.idleTimeout(IDLE).service("echo", this::counted));
        race(server, "tls", b -> b.idleTimeout(IDLE), ROUNDS / 3);
    }

    private Object counted(Object p) {
        runs.incrementAndGet();
        return p;
    }

    /**
     * {@link #CLIENTS} clients of {@code server} (each set up by {@code client}) call it {@code rounds}
     * times in all, each call after a pause drawn around the idle timeout; every call must complete.
     */
    private void race(RpccServer server, String name, java.util.function.UnaryOperator<RpccClient.Builder> client,
                      int rounds) throws Exception {
        List<RpccClient> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(cluster.client(client));
        }
        long idleBefore = server.stats().refused(Refusal.IDLE_TIMEOUT);
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (RpccClient c : clients) {
            threads.add(Thread.ofPlatform().name("race-" + threads.size()).start(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long idleNanos = IDLE.toNanos();
                for (int round = 0; round < rounds / CLIENTS; round++) {
                    try {
                        Object got = c.call(name, "echo", round).get(10, TimeUnit.SECONDS).value();
                        if (!Integer.valueOf(round).equals(got)) {
                            failures.add("round " + round + ": got " + got);
                        }
                    } catch (ExecutionException e) {
                        failures.add("round " + round + ": " + e.getCause());
                    } catch (TimeoutException e) {
                        failures.add("round " + round + ": no answer within 10 s (the request or its result was lost)");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    done.incrementAndGet();
                    // from a little before to a little after the moment the connections go idle
                    LockSupport.parkNanos(idleNanos - 8_000_000L + random.nextLong(16_000_000L));
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        long letGo = server.stats().refused(Refusal.IDLE_TIMEOUT) - idleBefore;
        System.out.println("idle race '" + name + "': " + done.get() + " calls, " + letGo
                + " connections let go as idle by the server, " + failures.size() + " failed");
        assertTrue(letGo > done.get() / 10, "the calls met the idle close often: " + letGo + " of " + done.get());
        assertEquals(List.of(), failures.stream().limit(10).toList(), failures.size() + " of " + done.get()
                + " calls failed");
        assertEquals(done.get(), runs.get(), "each call's hop ran once: none lost, none sent again once read");
    }
}
