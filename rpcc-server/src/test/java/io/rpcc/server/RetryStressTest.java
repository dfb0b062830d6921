package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RetryPolicy;
import io.rpcc.client.RetryThrottle;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.NameResolver;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.StressDepth;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Many multi-return chains over three servers whose links to the next hop fail at random (the
 * forwarding server's resolver gives a dead address: a retryable unreachable hop), retried by policy:
 * every chain ends with the right result, every service function ran exactly once per chain (the
 * retries replayed the hops that had run), and every reply is delivered exactly once, none after
 * the end: replayed hops send their replies again and the client drops those it delivered.
 */
class RetryStressTest {
    private static final int CHAINS = StressDepth.size(300, 3_000);
    private static final int AT_ONCE = 24;

    @Test
    void randomlyBrokenChainsRetriedEndExactlyWithEachSideEffectOnce() throws Exception {
        StaticNameResolver names = new StaticNameResolver();
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        SplittableRandom seeds = new SplittableRandom(14);
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        AtomicInteger injected = new AtomicInteger();
        List<AutoCloseable> nodes = new ArrayList<>();
        try {
            String[] servers = {"s1", "s2", "s3"};
            for (int i = 0; i < servers.length; i++) {
                String name = servers[i];
                SplittableRandom random = seeds.split();
                NameResolver flaky = server -> { // a third of the crossings to a server fail
                    boolean fail;
                    synchronized (random) {
                        fail = random.nextInt(3) == 0;
                    }
                    if (fail && !server.startsWith("client")) {
                        injected.incrementAndGet();
                        return Optional.of(new InetSocketAddress("127.0.0.1", dead));
                    }
                    return names.resolve(server);
                };
                RpccServer s = RpccServer.builder(name).resolver(i < 2 ? flaky : names).service("hop", p -> {
                    runs.computeIfAbsent(p + "@" + name, k -> new AtomicInteger()).incrementAndGet();
                    ChainContext.current().preturn(p + "@" + name);
                    return p;
                }).build().start();
                names.register(name, s.address());
                nodes.add(s);
            }
            RpccClient client = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(60))
                    .retryPolicy(RetryPolicy.attempts(30).backoff(Duration.ofMillis(2), Duration.ofMillis(20), 2))
                    .retryThrottle(new RetryThrottle(1_000_000, 1, 1)).build().start();
            nodes.add(client);
            StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "hop"), StaticRoute.hop("s2", "hop"),
                    StaticRoute.hop("s3", "hop"));

            for (int from = 0; from < CHAINS; from += AT_ONCE) {
                List<ReplySet<String>> sets = new ArrayList<>();
                for (int i = from; i < Math.min(CHAINS, from + AT_ONCE); i++) {
                    sets.add(client.startChainWithReplies(ChainCall.along(route, "c" + i), String.class));
                }
                for (int k = 0; k < sets.size(); k++) {
                    String tag = "c" + (from + k);
                    ReplySet<String> set = sets.get(k);
                    List<String> got = new ArrayList<>();
                    set.forEach(got::add);
                    assertEquals(tag, set.result().get(60, TimeUnit.SECONDS).value(), tag);
                    assertFalse(set.isPartial(), tag + ": " + set.error());
                    assertEquals(0, set.arrivedAfterEnd(), tag + ": no reply after the end");
                    Set<String> distinct = new HashSet<>(got);
                    assertEquals(got.size(), distinct.size(), tag + ": a reply delivered twice: " + got);
                    assertTrue(Set.of(tag + "@s1", tag + "@s2", tag + "@s3").containsAll(distinct), got.toString());
                    assertTrue(distinct.contains(tag + "@s3"), tag + ": the succeeding attempt's last reply: " + got);
                    assertEquals(3, distinct.size(), tag + ": every reply, those of attempts that broke too: " + got);
                    for (String server : servers) {
                        AtomicInteger n = runs.get(tag + "@" + server);
                        assertEquals(1, n == null ? 0 : n.get(), tag + " ran at " + server + " exactly once");
                    }
                }
            }
            assertTrue(injected.get() > CHAINS / 5, "failures were injected: " + injected);
            assertTrue(client.stats().retries() >= injected.get() / 2, client.stats() + ", injected " + injected);
            assertEquals(0, client.chainsInFlight());
            System.out.println("retry stress: " + CHAINS + " chains, " + injected + " failures injected, " + client.stats());
            assertTrue(client.stats().repliesSentAgain() > 0, "replayed hops sent their replies again: " + client.stats());
        } finally {
            for (AutoCloseable n : nodes.reversed()) {
                n.close();
            }
        }
    }
}
