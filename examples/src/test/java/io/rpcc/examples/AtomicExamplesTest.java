package io.rpcc.examples;

import io.rpcc.examples.atomic.AtomicFigures;
import io.rpcc.examples.atomic.BankTransfer;
import io.rpcc.examples.atomic.ReplicatedLog;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The atomic-chain examples: their outcomes are checked; the figures runner runs once, tiny, unjudged. */
class AtomicExamplesTest {
    @Test
    void transfersAcrossThreeSitesCommitEverywhereOrNowhere() throws Exception {
        // 30 transfers, up to 12 at once: every one writes the clearing house's ledger, so they conflict throughout
        // and commit one after another, each holding its locks for a few wide-area round trips (about a second)
        BankTransfer.Report r = BankTransfer.run(30, 6);
        System.out.println(r);
        assertTrue(r.consistent(), r::toString);
        assertEquals(30, r.committed() + r.refused(), r::toString);
        assertTrue(r.committed() > 0, r::toString);
    }

    @Test
    void theReplicatedLogAppendsAtAMajorityOrNowhere() {
        try (ReplicatedLog log = new ReplicatedLog(5)) {
            assertEquals(1, log.append("log-1", "a"));
            log.kill("log-4");
            log.kill("log-5");
            assertEquals(2, log.append("log-1", "b"));
            log.kill("log-3");
            assertThrows(RuntimeException.class, () -> log.append("log-1", "c"));
            Map<String, List<String>> logs = log.logs();
            assertEquals(List.of("a", "b"), logs.get("log-1"), logs::toString);
            assertEquals(List.of("a", "b"), logs.get("log-2"), logs::toString);
            assertEquals(List.of("a", "b"), logs.get("log-3"), logs::toString);
        }
    }

    @Test
    void theFiguresRunnerRunsOnce() throws Exception {
        AtomicFigures.Figures f = AtomicFigures.run(20, 0.2, 8, 2);
        assertTrue(f.atomicMs() > 0 && f.wanAtomicMs() > 0 && f.atomicBytesPerHop() > 0, f::toString);
        assertTrue(f.twoPcMs() > 0 && f.twoPcPerSecond() > 0 && f.wanTwoPcMs() > 0 && f.wanTwoPcAppliedMs() > 0
                && f.twoPcBytesPerHop() > f.plainBytesPerHop(), f::toString);
        assertTrue(f.decidedMs() > 0 && f.decidedPerSecond() > 0 && f.wanDecidedCallerMs() > 0, f::toString);
        // (causal, not timing: a server applies the commit, hooks included, before it acknowledges it, and the
        // runner reads when it was applied once every acknowledgement is home)
        assertTrue(f.wanRuns() == 2 && f.wanPlainFastestMs() > 0 && f.wanAtomicFastestMs() > 0
                && f.wanAppliedFastestMs() > 0 && f.wanAppliedMs() <= f.wanAckedMs(), f::toString);
    }
}
