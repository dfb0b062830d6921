package io.rpcc.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged node's log lines as an operator reads them: a node process ({@code java -jar
 * rpcc-node.jar}) whose service jar logs through SLF4J inside its service function; the lines on the
 * node's standard error name the chain and the hop ({@code [client-1#42 hop 2]}), the service's line
 * and rpcc's own failure line of a failing hop, while lines outside a hop look as before.
 */
class StandaloneNodeLogsIT {
    private static final Duration START = Duration.ofSeconds(60);

    @TempDir
    Path work;

    @BeforeEach
    void needsTheDist() {
        NodeProcess.requireIntegrationTestPhase();
    }

    @Test
    void linesWrittenDuringAHopNameTheChainAndTheHop() throws Exception {
        Path services = new ServiceJar()
                .source("notes.NotesModule", """
                        package notes;
                        import io.rpcc.node.ServiceModule;
                        import io.rpcc.server.RpccServer;
                        import org.slf4j.Logger;
                        import org.slf4j.LoggerFactory;
                        public final class NotesModule implements ServiceModule {
                            private static final Logger log = LoggerFactory.getLogger("notes.Notes");
                            @Override public void configure(RpccServer.Builder server) {
                                server.service("note", params -> {
                                          log.info("noting {}", params);
                                          return params;
                                      })
                                      .service("fail", params -> {
                                          throw new IllegalStateException("out of " + params);
                                      });
                            }
                        }
                        """)
                .serviceModule("notes.NotesModule")
                .writeTo(work.resolve("services/notes.jar")).getParent();
        int port = freePort();
        try (NodeProcess a = NodeProcess.start("a", work.resolve("a"), Map.of("RPCC_NAME", "a",
                "RPCC_BIND", "127.0.0.1", "RPCC_PORT", "" + port, "RPCC_HEALTH_PORT", "0",
                "RPCC_PEERS", "a=127.0.0.1:" + port, "RPCC_SERVICES_PATH", services.toString(),
                "RPCC_SHUTDOWN_GRACE", "2s"))) {
            a.awaitLine("rpcc node 'a' ready", START);
            StaticNameResolver names = new StaticNameResolver().register("a", new InetSocketAddress("127.0.0.1", port));
            String chain;
            try (RpccClient client = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(60)).build().start()) {
                // two hops on a, both logging from the service function
                assertEquals("pens", client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "note"),
                        StaticRoute.hop("a", "note")), "pens")).value());
                String noted = awaitStderr(a, "notes.Notes [" + client.name() + "#", "hop 2] - noting pens");
                chain = noted.substring(noted.indexOf('[', noted.indexOf("notes.Notes")) + 1, noted.indexOf(" hop 2]"));
                awaitStderr(a, "[" + chain + " hop 1] - noting pens", "");

                // a failing hop: rpcc's failure line (and its stack trace) carries the failing chain
                assertThrows(ExecutionException.class,
                        () -> client.call("a", "fail", "ink").get(60, TimeUnit.SECONDS));
                String failure = awaitStderr(a, " WARN io.rpcc.failures [" + client.name() + "#", "failed at hop 1 on 'a'");
                assertTrue(Pattern.compile("^\\[[^]]+] WARN io\\.rpcc\\.failures \\[" + Pattern.quote(client.name())
                        + "#\\d+ hop 1] - chain " + Pattern.quote(client.name()) + "#\\d+ failed at hop 1 on 'a' "
                        + "\\(service function 'fail'\\): .*out of ink.*").matcher(failure).matches(), failure);
                assertTrue(a.stderr().contains("java.lang.IllegalStateException: out of ink"), a.stderr());
            }
            // outside a hop: "[thread] LEVEL logger - message", as before
            String listens = awaitStderr(a, "rpcc node 'a' listens on", "");
            assertTrue(listens.matches("^\\[[^]]+] INFO io\\.rpcc\\.node\\.internal\\.StandaloneNode - rpcc node 'a' listens on .*"),
                    listens);
            assertEquals(0, a.terminate(Duration.ofSeconds(30)), a.stderr());
        }
    }

    /** Waits for a line of the node's standard error containing {@code first} and, after it, {@code then}. */
    private static String awaitStderr(NodeProcess node, String first, String then) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            String stderr = node.stderr();
            for (String line : stderr.lines().toList()) {
                int at = line.indexOf(first);
                if (at >= 0 && line.indexOf(then, at + first.length()) >= 0) {
                    return line;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no line with \"" + first + "\" then \"" + then + "\" on stderr:\n" + stderr);
            }
            Thread.sleep(50);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
