package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.aggregation.Aggregation;
import io.rpcc.examples.aggregation.Source;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The aggregation example runs both variants end to end and prints one JSON object per variant. */
class AggregationTest {
    @Test
    void idealIsTheMeanProductionTime() {
        // fast: 5..50 step 5, medium: 20..200 step 20, slow: 50..250 step 50, straggler: 400, 450, 500
        assertEquals((275 + 1100 + 750 + 1350) / 28.0, Aggregation.idealAatMs(Source.defaults()), 1e-9);
    }

    @Test
    void printsOneJsonLinePerVariant() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Main.main(new String[] {"aggregation", "--json", "--rounds", "1"});
        } finally {
            System.setOut(original);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        original.println(String.join("\n", lines));
        assertEquals(3, lines.size(), lines.toString());
        List<String> variants = List.of("single", "multi", "ideal");
        for (int i = 0; i < 3; i++) {
            String line = lines.get(i);
            assertTrue(line.matches("\\{\"scenario\":\"aggregation\",\"variant\":\"" + variants.get(i)
                    + "\",\"aat_ms\":[0-9.]+,\"records\":28}"), line);
        }
    }
}
