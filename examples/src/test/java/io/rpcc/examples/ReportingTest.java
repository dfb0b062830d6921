package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runners' JSON lines, the ideal check, options and charts. */
class ReportingTest {
    @Test
    void jsonCarriesTheFieldsTheIssueNames() {
        assertEquals("{\"scenario\":\"copy\",\"variant\":\"rpc\",\"param\":500,\"client\":\"Redmond\",\"median_ms\":223.00,"
                        + "\"hops\":4,\"bytes_via_client\":1050000}",
                Measurement.measured("copy", "rpc", 500, 223, 4).at("Redmond").withBytesViaClient(1_050_000).json());
        assertEquals("{\"scenario\":\"webmail\",\"variant\":\"ideal\",\"for\":\"chain\",\"param\":10,\"median_ms\":185.25,\"hops\":4}",
                Measurement.ideal("webmail", "chain", 10, 185.25, 4).json());
    }

    @Test
    void idealCheckAllowsTenPercentPlusOneMillisecondPerHop() {
        Results r = new Results()
                .add(Measurement.ideal("s", "chain", 1, 100, 4))
                .add(Measurement.measured("s", "chain", 1, 114, 4));
        assertEquals("+14%", r.versusIdeal(r.measured("chain", 1, null), "chain"));
        Results over = new Results()
                .add(Measurement.ideal("s", "chain", 1, 100, 4))
                .add(Measurement.measured("s", "chain", 1, 114.5, 4));
        assertEquals("+15% !", over.versusIdeal(over.measured("chain", 1, null), "chain"));
    }

    @Test
    void unknownOptionsAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Options.parse(new String[] {"--size", "1"}, "--sizes", "--runs"));
        assertTrue(e.getMessage().contains("unknown option --size") && e.getMessage().contains("--sizes X"), e.getMessage());
        Options o = Options.parse(new String[] {"--sizes", "1,2", "--no-charts"}, "--sizes");
        assertEquals(List.of(1, 2), o.integers("--sizes", List.of()));
        assertEquals(null, o.charts());
    }

    @Test
    void chartIsAPng(@TempDir Path dir) throws Exception {
        List<Measurement> lines = List.of(
                Measurement.measured("s", "chain", 0, 40, 2), Measurement.measured("s", "chain", 100, 60, 2),
                Measurement.ideal("s", "chain", 0, 33, 2), Measurement.ideal("s", "chain", 100, 49, 2));
        Path png = Charts.line(dir, "figure", "title", "x", "y", lines, Measurement::label, Measurement::param,
                Measurement::medianMs);
        assertEquals(dir.resolve("figure.png"), png);
        byte[] header = Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, header);
        assertTrue(Files.size(png) > 5_000, "a drawn chart, not an empty image: " + Files.size(png) + " bytes");
        assertEquals(null, Charts.line(null, "figure", "t", "x", "y", lines, Measurement::label, Measurement::param,
                Measurement::medianMs));
    }
}
