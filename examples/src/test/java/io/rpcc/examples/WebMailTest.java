package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.examples.webmail.WebMail;
import io.rpcc.testkit.WanTopology;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The web mail example serves a mailbox with ads both ways over the emulated WAN. */
class WebMailTest {
    @Test
    void bothVariantsServeTheMailboxWithAds() throws Exception {
        List<WebMail.Row> rows = WebMail.run(List.of(10), 1); // throws if a mailbox comes back without its ads
        assertEquals(List.of("chain", "rpc", "ideal", "ideal-rpc"), rows.stream().map(WebMail.Row::variant).toList());
    }

    @Test
    void idealsFollowTheLinks() {
        WanTopology t = WanTopology.paperFigure7();
        // MV→RD 16, auth 2 x 1, RD→BJ 73, BJ→BJ 1, BJ→RD 73, RD→MV 16 (+ transmissions of a 0-byte mailbox)
        assertEquals(16 + 2 + 73 + 1 + 73 + 16, WebMail.idealMs(t, 0, true), 0.01);
        // the RPC version crosses Redmond–Beijing twice more
        assertEquals(16 + 2 + 73 + 73 + 73 + 73 + 16, WebMail.idealMs(t, 0, false), 0.01);
    }
}
