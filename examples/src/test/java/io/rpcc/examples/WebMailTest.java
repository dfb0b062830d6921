package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.webmail.WebMail;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The web mail example serves a mailbox with ads three ways over the emulated WAN. */
class WebMailTest {
    @Test
    void chainRpccAndGrpcServeTheMailboxWithAds() throws Exception {
        // throws if a mailbox comes back without its ads, whichever variant carried it
        Results results = WebMail.run(List.of(10), 1, Duration.ZERO);
        assertEquals(List.of("chain", "rpc", "grpc", "ideal chain", "ideal rpc"),
                results.lines().stream().map(Measurement::label).toList());
        Measurement grpc = results.measured("grpc", 10, null);
        assertTrue(grpc.medianMs() >= results.ideal("rpc", 10, null).medianMs(),
                "gRPC crossed the emulated links: " + grpc.medianMs() + " ms");
    }

    @Test
    void idealsFollowTheLinks() {
        WanTopology t = WanTopology.paperFigure7();
        // login MV↔RD 2 x 16, MV→RD 16, auth 2 x 1, RD→BJ 73, BJ→BJ 1, BJ→RD 73, RD→MV 16 (+ transmissions of a
        // 0-byte mailbox)
        assertEquals(32 + 16 + 2 + 73 + 1 + 73 + 16, WebMail.idealMs(t, 0, true), 0.01);
        // the RPC version crosses Redmond–Beijing twice more
        assertEquals(32 + 16 + 2 + 73 + 73 + 73 + 73 + 16, WebMail.idealMs(t, 0, false), 0.01);
    }
}
