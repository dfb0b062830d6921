package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.UnknownServerException;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A hop failure is logged once, by the node where it happened, with the chain id, hop and host
 * (slf4j-simple writes to System.err, which the test captures while passing it through).
 */
class FailureLogTest {
    final Cluster cluster = new Cluster();
    final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream originalErr;

    @BeforeEach
    void capture() {
        originalErr = System.err;
        PrintStream tee = new PrintStream(new OutputStream() {
            @Override
            public synchronized void write(int b) {
                captured.write(b);
                originalErr.write(b);
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                captured.write(b, off, len);
                originalErr.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(tee);
    }

    @AfterEach
    void restore() throws Exception {
        System.setErr(originalErr);
        cluster.close();
    }

    private List<String> failureLines(String chainId) {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8).lines()
                    .filter(l -> l.contains("io.rpcc.failures") && l.contains("chain " + chainId + " "))
                    .toList();
        }
    }

    @Test
    void aServiceFunctionFailureIsLoggedOnceWhereItHappened() {
        cluster.server("s1", b -> b.service("echo", p -> p));
        cluster.server("s2", b -> b.service("boom", p -> {
            throw new IllegalStateException("boom at s2");
        }));
        RpccClient client = cluster.client();
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class, () -> client.runChain(ChainCall.along(
                StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "boom")), "x")));
        String chainId = client.name() + "#1";
        List<String> lines = failureLines(chainId);
        assertEquals(1, lines.size(), () -> "one line for " + chainId + ", got " + lines + " (failure: " + e + ")");
        String line = lines.getFirst();
        assertTrue(line.contains("WARN"), line);
        assertTrue(line.contains("failed at hop 2 on 's2' (service function 'boom')"), line);
        assertTrue(line.contains("boom at s2"), line);
        String all = captured.toString(StandardCharsets.UTF_8);
        assertTrue(all.contains("java.lang.IllegalStateException: boom at s2"), "with the service function's stack trace");
    }

    @Test
    void aForwardingFailureIsLoggedOnceByTheHopThatForwarded() {
        cluster.server("s1", b -> b.service("echo", p -> p));
        RpccClient client = cluster.client();
        ChainException e = assertThrows(UnknownServerException.class, () -> client.runChain(ChainCall.along(
                StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("nowhere", "echo")), "x")));
        List<String> lines = failureLines(client.name() + "#1");
        assertEquals(1, lines.size(), () -> lines + " (failure: " + e + ")");
        assertTrue(lines.getFirst().contains("failed at hop 1 on 's1'"), lines.getFirst());
        assertTrue(lines.getFirst().contains("no address for server 'nowhere'"), lines.getFirst());
    }

    @Test
    void theOriginatorDoesNotLogAFailureItHandsToTheCaller() {
        RpccClient client = cluster.client();
        assertThrows(UnknownServerException.class,
                () -> client.runChain("nowhere", "echo", "x", ChainingFunctionSource.NONE, ChainState.empty()));
        assertEquals(List.of(), failureLines(client.name() + "#1"));
    }
}
