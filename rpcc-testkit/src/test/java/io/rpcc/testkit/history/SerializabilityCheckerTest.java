package io.rpcc.testkit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.testkit.history.Anomaly.Kind;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Hand-built histories: each anomaly is found and named, and valid histories pass. */
class SerializabilityCheckerTest {
    /** Checks, prints the verdict, and asserts that the one anomaly of {@code kind} names these. */
    private static Verdict expect(History h, Kind kind, List<String> txs, String key) {
        Verdict v = SerializabilityChecker.check(h);
        System.out.println(v);
        assertFalse(v.ok(), "expected " + kind);
        assertTrue(v.has(kind), "expected " + kind + " in " + v);
        Anomaly a = v.of(kind).get(0);
        assertTrue(a.transactions().containsAll(txs), a + " should name " + txs);
        assertTrue(a.keys().contains(key), a + " should name " + key);
        for (String t : txs) {
            assertTrue(a.explanation().contains(t), a.explanation());
        }
        assertTrue(a.explanation().contains(key), a.explanation());
        return v;
    }

    private static Verdict ok(History h) {
        Verdict v = SerializabilityChecker.check(h);
        System.out.println(v);
        v.assertOk();
        return v;
    }

    // --- valid histories

    @Test
    void aSerialHistoryPasses() {
        History h = new History();
        h.read("T1", "x", null).write("T1", "x", "T1:x").write("T1", "y", "T1:y").committed("T1");
        h.read("T2", "x", "T1:x").write("T2", "x", "T2:x").read("T2", "x", "T2:x").committed("T2");
        h.read("T3", "y", "T1:y").read("T3", "x", "T2:x").committed("T3");
        h.installed("x", "T1:x").installed("x", "T2:x").installed("y", "T1:y");
        h.finalState("x", "T2:x").finalState("y", "T1:y");
        Verdict v = ok(h);
        assertEquals(3, v.committed());
    }

    @Test
    void concurrentTransactionsOnDisjointKeysPass() {
        History h = new History();
        for (int i = 0; i < 50; i++) {
            String t = "T" + i;
            String k = "k" + i;
            h.read(t, k, null).write(t, k, t + ":" + k).committed(t);
        }
        ok(h);
    }

    @Test
    void readOnlyTransactionsPass() {
        History h = new History().initial("x", 0).initial("y", 0);
        h.read("R1", "x", 0).read("R1", "y", 0).committed("R1");
        h.read("R2", "y", 0).read("R2", "x", 0).committed("R2");
        ok(h);
    }

    @Test
    void concurrentRecordingFromManyThreadsPasses() throws Exception {
        History h = new History();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 400; i++) {
            String t = "T" + i;
            pool.execute(() -> h.read(t, t, null).write(t, t, t + ":v").write(t, "log-" + t, 1).committed(t));
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        assertEquals(400, h.size());
        assertEquals(400, ok(h).committed());
    }

    @Test
    void anUnknownTransactionNobodySawDidNotHappen() {
        History h = new History();
        h.write("T1", "x", "T1:x").write("T1", "y", "T1:y").unknown("T1");
        h.read("T2", "x", null).read("T2", "y", null).committed("T2");
        h.finalState("x", null);
        assertEquals(1, ok(h).committed());
    }

    @Test
    void anUnknownTransactionSomebodySawCommitted() {
        History h = new History();
        h.write("T1", "x", "T1:x").write("T1", "y", "T1:y").unknown("T1");
        h.read("T2", "x", "T1:x").read("T2", "y", "T1:y").committed("T2");
        assertEquals(2, ok(h).committed());
    }

    @Test
    void anAbortedTransactionsReadsAreNotJudged() {
        History h = new History();
        h.read("T1", "x", "never written").write("T1", "x", "T1:x").aborted("T1");
        h.read("T2", "x", null).committed("T2");
        ok(h);
    }

    // --- anomalies

    @Test
    void g0WriteCycle() {
        History h = new History();
        h.write("T1", "x", "T1:x").write("T1", "y", "T1:y").committed("T1");
        h.write("T2", "x", "T2:x").write("T2", "y", "T2:y").committed("T2");
        h.installed("x", "T1:x").installed("x", "T2:x");
        h.installed("y", "T2:y").installed("y", "T1:y");
        Verdict v = expect(h, Kind.G0, List.of("T1", "T2"), "x");
        assertFalse(v.has(Kind.G2), "one anomaly for the cycle: " + v);
    }

    @Test
    void g1aAbortedRead() {
        History h = new History();
        h.write("T1", "x", "T1:x").aborted("T1");
        h.read("T2", "x", "T1:x").committed("T2");
        expect(h, Kind.G1A, List.of("T1", "T2"), "x");
    }

    @Test
    void g1bIntermediateRead() {
        History h = new History();
        h.write("T1", "x", "T1:x:1").write("T1", "x", "T1:x:2").committed("T1");
        h.read("T2", "x", "T1:x:1").committed("T2");
        expect(h, Kind.G1B, List.of("T1", "T2"), "x");
    }

    @Test
    void g1cCircularInformationFlow() {
        History h = new History();
        h.write("T1", "x", "T1:x").read("T1", "y", "T2:y").committed("T1");
        h.write("T2", "y", "T2:y").read("T2", "x", "T1:x").committed("T2");
        expect(h, Kind.G1C, List.of("T1", "T2"), "y");
    }

    @Test
    void g2WriteSkewWithAnInstallLog() {
        History h = new History();
        h.read("T1", "x", null).read("T1", "y", null).write("T1", "x", "T1:x").committed("T1");
        h.read("T2", "x", null).read("T2", "y", null).write("T2", "y", "T2:y").committed("T2");
        h.installed("x", "T1:x").installed("y", "T2:y");
        Verdict v = expect(h, Kind.G2, List.of("T1", "T2"), "x");
        assertFalse(v.has(Kind.LOST_UPDATE), v.toString());
    }

    @Test
    void g2WriteSkewWithoutAnInstallLog() {
        History h = new History();
        h.read("T1", "x", null).read("T1", "y", null).write("T1", "x", "T1:x").committed("T1");
        h.read("T2", "x", null).read("T2", "y", null).write("T2", "y", "T2:y").committed("T2");
        expect(h, Kind.G2, List.of("T1", "T2"), "y");
    }

    @Test
    void gSingleReadSkew() {
        // T2 moves 10 from x to y; T1 sees x before and y after: a cycle with one rw edge
        History h = new History().initial("x", 100).initial("y", 0);
        h.read("T2", "x", 100).write("T2", "x", 90).read("T2", "y", 0).write("T2", "y", 10).committed("T2");
        h.read("T1", "x", 100).read("T1", "y", 10).committed("T1");
        h.installed("x", 90).installed("y", 10);
        Verdict v = expect(h, Kind.G2, List.of("T1", "T2"), "x");
        assertTrue(v.of(Kind.G2).get(0).explanation().contains("G-single"), v.toString());
    }

    @Test
    void lostUpdate() {
        History h = new History().initial("counter", 0);
        h.read("T1", "counter", 0).write("T1", "counter", 1).committed("T1");
        h.read("T2", "counter", 0).write("T2", "counter", 2).committed("T2");
        h.installed("counter", 1).installed("counter", 2).finalState("counter", 2);
        expect(h, Kind.LOST_UPDATE, List.of("T1", "T2"), "counter");
    }

    @Test
    void partialCommitSomeWritesInstalled() {
        History h = new History();
        h.write("T1", "x", "T1:x").write("T1", "y", "T1:y").committed("T1");
        h.write("T2", "y", "T2:y").committed("T2");
        h.installed("x", "T1:x").installed("y", "T2:y");
        Verdict v = expect(h, Kind.PARTIAL_COMMIT, List.of("T1"), "y");
        assertTrue(v.of(Kind.PARTIAL_COMMIT).get(0).explanation().contains("T1:x"), v.toString());
    }

    @Test
    void partialCommitAnAbortedWriteInstalled() {
        History h = new History();
        h.write("T1", "x", "T1:x").write("T1", "y", "T1:y").aborted("T1");
        h.installed("x", "T1:x");
        expect(h, Kind.PARTIAL_COMMIT, List.of("T1"), "x");
    }

    @Test
    void partialCommitWhenTheLogIsCompleteForEveryKey() {
        History h = new History().installLogComplete();
        h.write("T1", "x", "T1:x").committed("T1");
        expect(h, Kind.PARTIAL_COMMIT, List.of("T1"), "x");
    }

    @Test
    void aValueNobodyWrote() {
        History h = new History();
        h.write("T1", "x", "T1:x").committed("T1");
        h.read("T2", "x", "T9:x").committed("T2");
        expect(h, Kind.UNWRITTEN_VALUE, List.of("T2"), "x");
    }

    @Test
    void aFinalValueNobodyWrote() {
        History h = new History();
        h.write("T1", "x", "T1:x").committed("T1");
        h.finalState("x", "garbage");
        Verdict v = SerializabilityChecker.check(h);
        assertTrue(v.has(Kind.UNWRITTEN_VALUE), v.toString());
        assertTrue(v.of(Kind.UNWRITTEN_VALUE).get(0).explanation().contains("garbage"), v.toString());
    }

    @Test
    void aTransactionThatDoesNotSeeItsOwnWrite() {
        History h = new History();
        h.write("T1", "x", "T1:x").read("T1", "x", null).committed("T1");
        expect(h, Kind.INTERNAL, List.of("T1"), "x");
    }

    @Test
    void aNonRepeatableRead() {
        History h = new History();
        h.write("T1", "x", "T1:x").committed("T1");
        h.read("T2", "x", null).read("T2", "x", "T1:x").committed("T2");
        expect(h, Kind.INTERNAL, List.of("T2"), "x");
    }

    @Test
    void aFinalStateThatIsNotTheLastInstalledValue() {
        History h = new History();
        h.write("T1", "x", "T1:x").committed("T1");
        h.read("T2", "x", "T1:x").write("T2", "x", "T2:x").committed("T2");
        h.installed("x", "T1:x").installed("x", "T2:x").finalState("x", "T1:x");
        expect(h, Kind.VERSION_ORDER, List.of("T2"), "x");
    }

    @Test
    void aValueInstalledTwice() {
        History h = new History();
        h.write("T1", "x", "T1:x").committed("T1");
        h.installed("x", "T1:x").installed("x", "T1:x");
        expect(h, Kind.VERSION_ORDER, List.of("T1"), "x");
    }

    @Test
    void aLostWriteInTheFinalState() {
        History h = new History();
        h.write("T1", "x", "T1:x").committed("T1");
        h.finalState("x", null);
        expect(h, Kind.VERSION_ORDER, List.of("T1"), "x");
    }

    // --- the recorder's rules

    @Test
    void twoTransactionsWritingOneValueAreRefused() {
        History h = new History();
        h.write("T1", "x", 7).committed("T1");
        h.write("T2", "x", 7).committed("T2");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SerializabilityChecker.check(h));
        assertTrue(e.getMessage().contains("T1") && e.getMessage().contains("T2") && e.getMessage().contains("unique"),
                e.getMessage());
    }

    @Test
    void aClientSeesOneOutcome() {
        History h = new History().unknown("T1").committed("T1").unknown("T1");
        assertThrows(IllegalStateException.class, () -> h.aborted("T1"));
        h.write("T1", "x", "T1:x").finalState("x", "T1:x");
        assertEquals(1, ok(h).committed());
    }
}
