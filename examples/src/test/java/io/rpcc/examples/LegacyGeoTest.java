package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code ./rpcc demo legacy}: on the emulated WAN, a chain through a real gRPC server and a real
 * HTTP server, each wrapped by an rpcc node, gets the quote; both legacy services saw the client's
 * credential and name; a refused order reaches the client as a typed error naming the hop.
 */
class LegacyGeoTest {
    @Test
    void theChainGoesThroughBothLegacyServicesWithTheClientsIdentity() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Main.run(new String[] {"legacy", "--runs", "1"});
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        original.print(out);
        assertTrue(out.contains("chain:   alice → inventory → pricing → alice"), out);
        assertTrue(out.contains("result:  Quote[sku=KB-42, quantity=2, reservation=R-KB-42-2, total=25.0]"), out);
        String identity = "authorization=Bearer alice-token, x-rpcc-originator=alice, x-rpcc-originator-verified=false";
        assertTrue(out.contains("the gRPC inventory saw:  " + identity), out);
        assertTrue(out.contains("the HTTP pricing saw:    " + identity), out);
        assertTrue(out.contains("reaches alice as SERVICE_FUNCTION_FAILED from hop 1 on 'inventory'"), out);
        assertTrue(out.contains("io.rpcc.legacy.LegacyCallException: service function 'reserve' threw"
                + " io.rpcc.legacy.LegacyCallException: legacy gRPC method shop.Inventory/Reserve failed with status"
                + " FAILED_PRECONDITION: no stock of none"), out);
    }
}
