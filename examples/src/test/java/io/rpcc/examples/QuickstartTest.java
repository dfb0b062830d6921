package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The README's demo: the quickstart runs a chain through three servers in both modes. */
class QuickstartTest {
    @Test
    void quickstartPrintsThePathTheResultAndTheSameResultInteractively() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Main.main(new String[] {"quickstart"});
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        original.print(out);
        assertTrue(out.contains("path:    client → gateway → inventory-eu → pricing → client"), out);
        assertTrue(out.contains("path:    client → gateway → inventory-us → pricing → client"), out);
        assertTrue(out.contains("result:  Quote[orderId=o-1001, warehouse=Lyon-2, totalCents=9998]"), out);
        assertTrue(out.contains("[hop 2 inventory-eu chaining] reserved 2 x KB-42 at Lyon-2"), out);
        assertTrue(out.contains("same result and path in both modes: true"), out);
        assertTrue(out.contains("same result and path as the continuation-style chain: true"), out);
        // the sequential chain prints each line once, at the hop that first runs it
        assertTrue(out.contains("[hop 2 inventory-eu chaining] reserved 2 x KB-42 at Lyon-2"), out);
        assertEquals(3, out.split("reserved 2 x KB-42 at Lyon-2", -1).length - 1, out); // chain, interactive, sequential
    }
}
