package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.copy.CopyUnderLoad;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The figure-12 runner end to end, at a small load. */
class CopyUnderLoadTest {
    @Test
    void measuresBothVariantsAtEachLoad() throws Exception {
        List<CopyUnderLoad.Row> rows = CopyUnderLoad.run(List.of(1, 2), 1);
        assertEquals(List.of("chain", "rpc", "chain", "rpc"), rows.stream().map(CopyUnderLoad.Row::variant).toList());
        assertEquals(List.of(1, 1, 2, 2), rows.stream().map(CopyUnderLoad.Row::clients).toList());
        assertTrue(rows.stream().allMatch(r -> r.megabytesPerSecond() > 0 && r.msPerFile() > 0));
    }
}
