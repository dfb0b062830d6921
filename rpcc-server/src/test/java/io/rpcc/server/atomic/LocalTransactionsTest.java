package io.rpcc.server.atomic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.server.internal.atomic.HopRun;
import io.rpcc.server.internal.atomic.LocalTransactions;
import io.rpcc.server.internal.atomic.Participant;
import io.rpcc.server.internal.atomic.TransactionAborted;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The local transaction engine of atomic chains at one node, one operation at a time, on the test's thread. */
class LocalTransactionsTest {
    /** A wound the engine sent. */
    record Wound(TxKey victim, TxStamp victimStamp, TxKey by) {
    }

    private final List<Wound> wounds = new CopyOnWriteArrayList<>();
    private final LocalTransactions node = new LocalTransactions((v, s, by) -> wounds.add(new Wound(v, s, by)));

    private static TxKey key(long chain) {
        return new TxKey("origin", chain, 0);
    }

    private static TxStamp stamp(long order) {
        return new TxStamp(false, order, 7);
    }

    /** The participant of chain {@code chain} stamped with {@code order}. */
    private Participant tx(long chain, long order) {
        return node.join(key(chain), stamp(order));
    }

    private <T> T done(Participant p, Callable<T> body) {
        HopRun<T> r = node.run(p, body);
        HopRun.Done<T> d = assertInstanceOf(HopRun.Done.class, r, () -> "expected Done, got " + r);
        return d.value();
    }

    private CompletableFuture<Void> parked(Participant p, Callable<?> body) {
        HopRun<?> r = node.run(p, body);
        return assertInstanceOf(HopRun.Parked.class, r, () -> "expected Parked, got " + r).resume();
    }

    private void assertIdle(TxMap<?, ?>... maps) {
        assertEquals(0, node.activeParticipants(), "active participants");
        assertEquals(0, node.locksHeld(), "locks held");
        assertEquals(0, node.parkedHops(), "parked hops");
        for (TxMap<?, ?> m : maps) {
            assertEquals(0, m.state().keyLockCount(), "per-key locks left in " + m);
            assertTrue(m.state().isMapLockIdle(), "map-wide lock of " + m + " idle");
        }
    }

    @Test
    void outsideAtomicChainsReadsAreCommittedAndWritesRefused() {
        TxVar<Integer> v = TxVar.of("v", 1);
        TxMap<String, Integer> m = TxMap.create("m");
        m.putCommitted("a", 1);
        assertEquals(1, v.get());
        assertEquals("v", v.name());
        assertNull(Transaction.current());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> v.set(2));
        assertTrue(e.getMessage().contains("atomic chain"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> m.put("b", 2));
        assertThrows(IllegalStateException.class, () -> m.remove("a"));
        assertEquals(1, m.get("a"));
        assertTrue(m.containsKey("a"));
        assertEquals(1, m.size());
        assertEquals(Set.of("a"), m.keys());
        assertEquals(Map.of("a", 1), m.committed());
    }

    @Test
    void writesAreSeenByTheirTransactionAndByOthersOnlyAfterCommit() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant a = tx(1, 10);
        done(a, () -> {
            v.set(v.get() + 1);
            assertEquals(2, v.get());
            assertEquals(1, v.committed());
            return null;
        });
        assertEquals(1, v.get(), "outside, the committed value");
        assertEquals(2, done(a, v::get), "a later hop of the same transaction sees its writes");
        assertEquals(1, node.locksHeld());
        assertEquals(1, node.activeParticipants());
        node.commit(a.key());
        assertEquals(2, v.get());
        assertTrue(a.isCommitted());
        assertEquals(1, node.commits());
        assertIdle();
        node.commit(a.key()); // idempotent
        assertEquals(1, node.commits());
    }

    @Test
    void abortDropsWritesAndRunsAbortHooksOnly() {
        TxVar<String> v = TxVar.of("v", "old");
        List<String> ran = new ArrayList<>();
        Participant a = tx(1, 10);
        done(a, () -> {
            v.set("new");
            Transaction t = Transaction.current();
            assertNotNull(t);
            t.onCommit(() -> ran.add("commit"));
            t.onAbort(() -> ran.add("abort:" + v.get()));
            return null;
        });
        node.abort(a.key(), "test");
        assertEquals("old", v.get());
        assertEquals(List.of("abort:old"), ran);
        assertEquals(1, node.aborts());
        assertIdle();
        node.abort(a.key(), "again");
        node.commit(a.key());
        assertEquals(List.of("abort:old"), ran, "ending twice does nothing");
    }

    @Test
    void aFailedAttemptHasNoEffectButKeepsItsLocks() {
        TxVar<Integer> v = TxVar.of("v", 1);
        List<String> ran = new ArrayList<>();
        Participant a = tx(1, 10);
        RuntimeException boom = new RuntimeException("boom");
        HopRun<Object> r = node.run(a, () -> {
            v.set(5);
            Transaction.current().onCommit(() -> ran.add("hook of the failed attempt"));
            throw boom;
        });
        assertSame(boom, assertInstanceOf(HopRun.Failed.class, r).error());
        assertEquals(1, node.locksHeld(), "the lock stays held until the transaction ends");
        assertEquals(1, done(a, v::get), "the failed attempt's write was dropped");
        node.commit(a.key());
        assertEquals(1, v.get());
        assertEquals(List.of(), ran);
        assertIdle();
    }

    @Test
    void commitRunsResourcesThenHooksInOrderWithTheWritesVisible() {
        TxVar<Integer> v = TxVar.of("v", 0);
        List<String> log = new CopyOnWriteArrayList<>();
        Participant a = tx(1, 10);
        done(a, () -> {
            v.set(1);
            Transaction t = Transaction.current();
            t.enlist(new RecordingResource("r1", log));
            t.enlist(new RecordingResource("r2", log));
            t.onCommit(() -> log.add("hook1 sees " + v.get()));
            t.onCommit(() -> log.add("hook2"));
            t.onAbort(() -> log.add("abort hook"));
            return null;
        });
        LocalTransactions.Vote vote = node.prepare(a);
        assertTrue(vote.yes(), vote.toString());
        assertEquals(List.of("r1.prepare", "r2.prepare"), log);
        node.commit(a.key());
        assertEquals(List.of("r1.prepare", "r2.prepare", "r1.commit", "r2.commit", "hook1 sees 1", "hook2"), log);
        assertIdle();
    }

    @Test
    void abortRollsResourcesBackThenRunsAbortHooks() {
        List<String> log = new CopyOnWriteArrayList<>();
        Participant a = tx(1, 10);
        done(a, () -> {
            Transaction t = Transaction.current();
            t.enlist(new RecordingResource("r1", log));
            t.onAbort(() -> log.add("abort hook"));
            return null;
        });
        node.abort(a.key(), "wounded");
        assertEquals(List.of("r1.rollback", "abort hook"), log);
    }

    @Test
    void aResourceThatRefusesToPrepareVotesNo() {
        List<String> log = new CopyOnWriteArrayList<>();
        RecordingResource bad = new RecordingResource("bad", log);
        bad.failPrepare = true;
        Participant a = tx(1, 10);
        done(a, () -> {
            Transaction.current().enlist(bad);
            return null;
        });
        LocalTransactions.Vote vote = node.prepare(a);
        assertFalse(vote.yes());
        assertTrue(vote.why().contains("bad") && vote.why().contains("no room"), vote.why());
        node.abort(a.key(), "voted no");
        assertEquals(List.of("bad.prepare", "bad.rollback"), log);
    }

    @Test
    void anAbortDuringAPrepareLeavesTheRollbackToThePreparer() {
        List<String> log = new CopyOnWriteArrayList<>();
        Participant a = tx(1, 10);
        RecordingResource slow = new RecordingResource("slow", log) {
            @Override
            public void prepare() throws Exception {
                super.prepare();
                node.abort(a.key(), "wounded while preparing"); // as if on another thread
                log.add("abort returned");
            }
        };
        done(a, () -> {
            Transaction.current().enlist(slow);
            return null;
        });
        LocalTransactions.Vote vote = node.prepare(a);
        assertFalse(vote.yes());
        assertTrue(vote.why().contains("wounded while preparing"), vote.why());
        assertEquals(List.of("slow.prepare", "abort returned", "slow.rollback"), log,
                "not rolled back while its prepare ran, and once after");
    }

    @Test
    void aResourceThatFailsToCommitIsAHeuristicOutcomeAndHooksStillRun() {
        List<String> log = new CopyOnWriteArrayList<>();
        RecordingResource bad = new RecordingResource("bad", log);
        bad.failCommit = true;
        Participant a = tx(1, 10);
        done(a, () -> {
            Transaction t = Transaction.current();
            t.enlist(bad);
            t.onCommit(() -> {
                throw new IllegalStateException("a hook that throws");
            });
            t.onCommit(() -> log.add("second hook"));
            return null;
        });
        assertTrue(node.prepare(a).yes());
        node.commit(a.key());
        assertEquals(1, node.heuristicOutcomes());
        assertEquals(List.of("bad.prepare", "bad.commit", "second hook"), log);
    }

    @Test
    void aParticipantThatVotedYesTakesLaterHopsAndPreparesOnlyWhatIsNew() {
        List<String> log = new CopyOnWriteArrayList<>();
        RecordingResource r1 = new RecordingResource("r1", log);
        RecordingResource r2 = new RecordingResource("r2", log);
        Participant a = tx(1, 10);
        done(a, () -> {
            Transaction.current().enlist(r1);
            return null;
        });
        assertTrue(node.prepare(a).yes());
        done(a, () -> {
            Transaction.current().enlist(r2);
            return null;
        });
        assertTrue(node.prepare(a).yes());
        assertEquals(List.of("r1.prepare", "r2.prepare"), log);
        done(a, () -> {
            Transaction.current().enlist(r1); // more work on r1: prepared again at the next vote
            return null;
        });
        assertTrue(node.prepare(a).yes());
        node.commit(a.key());
        assertEquals(List.of("r1.prepare", "r2.prepare", "r1.prepare", "r1.commit", "r2.commit"), log);
    }

    @Test
    void aResourceEnlistedByADroppedAttemptIsRolledBackAtOnce() {
        List<String> log = new CopyOnWriteArrayList<>();
        RecordingResource kept = new RecordingResource("kept", log);
        RecordingResource dropped = new RecordingResource("dropped", log);
        Participant a = tx(1, 10);
        done(a, () -> {
            Transaction.current().enlist(kept);
            return null;
        });
        node.run(a, () -> {
            Transaction.current().enlist(kept);
            Transaction.current().enlist(dropped);
            throw new IllegalArgumentException("fails");
        });
        assertEquals(List.of("dropped.rollback"), log, "kept stays enlisted: an earlier hop kept it");
        node.commit(a.key());
        assertEquals(List.of("dropped.rollback", "kept.commit"), log);
    }

    @Test
    void aLaterRequesterParksUntilTheHolderCommitsWithoutWounding() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant first = tx(1, 10);
        Participant later = tx(2, 20);
        done(first, () -> {
            v.set(2);
            return null;
        });
        List<String> runs = new ArrayList<>();
        CompletableFuture<Void> resume = parked(later, () -> {
            runs.add("run");
            return v.get();
        });
        assertFalse(resume.isDone());
        assertEquals(1, node.parkedHops());
        assertEquals(List.of(), wounds, "a later requester waits");
        node.commit(first.key());
        assertTrue(resume.isDone() && !resume.isCompletedExceptionally());
        assertEquals(0, node.parkedHops());
        assertEquals(2, done(later, v::get), "runs again from its start and sees the commit");
        node.commit(later.key());
        assertIdle();
    }

    @Test
    void aFirstComerWoundsALaterHolderOncePerLockAndGetsTheLockWhenItAborts() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant later = tx(2, 20);
        Participant first = tx(1, 10);
        done(later, () -> {
            v.set(3);
            return null;
        });
        CompletableFuture<Void> resume = parked(first, v::get);
        assertEquals(List.of(new Wound(later.key(), later.stamp(), first.key())), wounds);
        CompletableFuture<Void> again = parked(first, v::get);
        assertEquals(1, wounds.size(), "wounded once per victim and lock");
        assertEquals(1, node.woundsSent());
        node.abort(later.key(), "wounded by " + first.key());
        assertTrue(resume.isDone() && again.isDone());
        assertEquals(1, done(first, v::get));
        node.commit(first.key());
        assertIdle();
    }

    @Test
    void readersThatThenWriteWoundEachOtherWhenGrantedTogether() {
        TxVar<Integer> v = TxVar.of("v", 0);
        Participant writer = tx(1, 5);
        done(writer, () -> {
            v.set(10);
            return null;
        });
        List<Participant> readers = List.of(tx(2, 10), tx(3, 20), tx(4, 30));
        List<CompletableFuture<Void>> resumes = new ArrayList<>();
        for (Participant r : readers) {
            resumes.add(parked(r, () -> {
                v.set(v.get() + 1);
                return null;
            }));
        }
        node.commit(writer.key());
        assertTrue(resumes.stream().allMatch(CompletableFuture::isDone), "read locks are granted together");
        for (Participant r : readers.reversed()) { // the youngest runs again first
            node.run(r, () -> {
                v.set(v.get() + 1);
                return null;
            });
        }
        assertEquals(List.of(new Wound(readers.get(2).key(), readers.get(2).stamp(), readers.get(1).key()),
                new Wound(readers.get(1).key(), readers.get(1).stamp(), readers.get(0).key())), wounds,
                "each upgrade to the write lock wounds the younger readers");
        for (Participant r : readers) {
            node.abort(r.key(), "test over");
        }
        assertIdle();
    }

    @Test
    void readersForUpdateQueueForTheWriteLockWithoutWounds() {
        TxVar<Integer> v = TxVar.of("v", 0);
        TxMap<String, Integer> m = TxMap.create("m");
        m.putCommitted("k", 0);
        Participant writer = tx(1, 5);
        done(writer, () -> {
            v.set(10);
            m.put("k", 10);
            return null;
        });
        List<Participant> readers = List.of(tx(2, 10), tx(3, 20), tx(4, 30));
        Callable<Integer> increment = () -> {
            int n = v.update(x -> x + 1);
            Integer k = m.getForUpdate("k");
            m.put("k", k + 1);
            return n;
        };
        List<CompletableFuture<Void>> resumes = new ArrayList<>();
        for (Participant r : readers.reversed()) { // the youngest asks first
            resumes.add(0, parked(r, increment));
        }
        node.commit(writer.key());
        for (int i = 0; i < readers.size(); i++) {
            assertTrue(resumes.get(i).isDone(), "the oldest waiting reader is granted the lock");
            for (int j = i + 1; j < readers.size(); j++) {
                assertFalse(resumes.get(j).isDone(), "one writer at a time");
            }
            assertEquals(11 + i, done(readers.get(i), increment));
            node.commit(readers.get(i).key());
        }
        assertEquals(List.of(), wounds, "no wound: the readers queued in age order");
        assertEquals(13, v.get());
        assertEquals(13, m.get("k"));
        assertIdle(m);
    }

    @Test
    void forUpdateReadsAreRefusedOutsideAtomicChains() {
        TxVar<Integer> v = TxVar.of("v", 1);
        TxMap<String, Integer> m = TxMap.create("m");
        assertThrows(IllegalStateException.class, v::getForUpdate);
        assertThrows(IllegalStateException.class, () -> v.update(x -> x + 1));
        assertThrows(IllegalStateException.class, () -> m.getForUpdate("k"));
        assertEquals(1, v.get());
    }

    @Test
    void anAbortWakesTheTransactionsParkedHopsWithTheReason() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant first = tx(1, 10);
        Participant later = tx(2, 20);
        done(first, () -> {
            v.set(2);
            return null;
        });
        CompletableFuture<Void> resume = parked(later, v::get);
        node.abort(later.key(), "its originator gave up");
        CompletionException e = assertThrows(CompletionException.class, resume::join);
        TransactionAborted aborted = assertInstanceOf(TransactionAborted.class, e.getCause());
        assertEquals("its originator gave up", aborted.reason());
        assertEquals(0, node.parkedHops());
        node.commit(first.key());
        assertIdle();
    }

    @Test
    void aBodyThatSwallowsTheWaitIsParkedAllTheSame() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant first = tx(1, 10);
        Participant later = tx(2, 20);
        done(first, () -> {
            v.set(2);
            return null;
        });
        List<String> seen = new ArrayList<>();
        CompletableFuture<Void> resume = parked(later, () -> {
            try {
                v.get();
            } catch (Throwable t) {
                seen.add(t.getClass().getSimpleName());
            }
            try {
                v.set(9); // any later request of the attempt waits too
            } catch (Throwable t) {
                seen.add(t.getClass().getSimpleName());
            }
            return "swallowed";
        });
        assertEquals(List.of("TxWait", "TxWait"), seen);
        node.commit(first.key());
        assertTrue(resume.isDone());
        assertEquals(2, done(later, v::get), "nothing of the swallowing attempt was kept");
        node.commit(later.key());
        assertIdle();
    }

    @Test
    void aBodyOfATransactionAbortedMeanwhileFailsWithTheAbort() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant a = tx(1, 10);
        HopRun<Object> r = node.run(a, () -> {
            v.set(2);
            node.abort(a.key(), "cancelled while the hop ran");
            throw new IllegalStateException("a failure of its own");
        });
        TransactionAborted e = assertInstanceOf(TransactionAborted.class, assertInstanceOf(HopRun.Failed.class, r).error());
        assertEquals("cancelled while the hop ran", e.reason());
        Participant b = tx(2, 20);
        HopRun<Object> r2 = node.run(b, () -> {
            node.abort(b.key(), "aborted");
            return v.get(); // a lock request of an aborted transaction
        });
        assertInstanceOf(TransactionAborted.class, assertInstanceOf(HopRun.Failed.class, r2).error());
        assertEquals(1, v.get());
        assertIdle();
    }

    @Test
    void endedTransactionsAreRememberedAndTheirLateHopsRefused() {
        Participant a = tx(1, 10);
        node.commit(a.key());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> tx(1, 10));
        assertTrue(e.getMessage().contains("committed") && e.getMessage().contains(a.key().toString()), e.getMessage());
        Participant b = tx(2, 10);
        node.abort(b.key(), "wounded");
        assertTrue(assertThrows(IllegalStateException.class, () -> tx(2, 10)).getMessage().contains("wounded"));
        node.abort(key(3), "cancelled before its hop came"); // unknown: nothing to do, remembered
        assertThrows(IllegalStateException.class, () -> tx(3, 10));
        node.commit(key(4)); // unknown: no-op
        assertInstanceOf(HopRun.Failed.class, node.run(a, () -> 1), "a run of an ended participant");
        assertEquals(1, node.commits());
        assertEquals(1, node.aborts());
        assertIdle();
    }

    @Test
    void aPromotionTakesEffectAtOnce() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant holder = tx(1, 5);
        Participant waiter = tx(2, 10);
        done(holder, () -> {
            v.set(2);
            return null;
        });
        CompletableFuture<Void> resume = parked(waiter, v::get);
        assertEquals(List.of(), wounds);
        TxStamp primary = stamp(10).promoted(3);
        assertSame(waiter, node.join(waiter.key(), primary));
        assertEquals(primary, waiter.stamp());
        assertEquals(List.of(new Wound(holder.key(), holder.stamp(), waiter.key())), wounds,
                "the promoted waiter comes first now, so it wounds the holder");
        node.join(waiter.key(), stamp(10));
        assertEquals(primary, waiter.stamp(), "a stamp that comes later does not demote");
        node.abort(holder.key(), "wounded");
        assertTrue(resume.isDone());
        node.commit(waiter.key());
        assertIdle();
    }

    @Test
    void readersShareAndAnUpgradeWaitsForTheOtherReaders() {
        TxVar<Integer> v = TxVar.of("v", 1);
        Participant first = tx(1, 10);
        Participant later = tx(2, 20);
        assertEquals(1, done(first, v::get));
        assertEquals(1, done(later, v::get));
        assertEquals(2, node.locksHeld());
        CompletableFuture<Void> upgrade = parked(first, () -> {
            v.set(5);
            return null;
        });
        assertEquals(List.of(new Wound(later.key(), later.stamp(), first.key())), wounds);
        CompletableFuture<Void> laterUpgrade = parked(later, () -> {
            v.set(6);
            return null;
        });
        assertEquals(1, wounds.size(), "the later one waits without wounding");
        node.abort(later.key(), "wounded");
        assertTrue(upgrade.isDone() && !upgrade.isCompletedExceptionally());
        assertTrue(laterUpgrade.isCompletedExceptionally());
        done(first, () -> {
            v.set(5);
            return null;
        });
        node.commit(first.key());
        assertEquals(5, v.get());
        assertIdle();
    }

    @Test
    void waitersAreGrantedInTransactionOrder() {
        TxVar<Integer> v = TxVar.of("v", 0);
        Participant holder = tx(1, 10);
        Participant writer = tx(2, 20);
        Participant lateReader = tx(3, 30);
        Participant earlyReader = tx(4, 5);
        assertEquals(0, done(holder, v::get));
        CompletableFuture<Void> writerResume = parked(writer, () -> {
            v.set(1);
            return null;
        });
        CompletableFuture<Void> lateResume = parked(lateReader, v::get);
        assertEquals(0, done(earlyReader, v::get), "a reader that comes before the waiting writer is not held back");
        node.commit(holder.key());
        assertFalse(writerResume.isDone(), "still waits for the early reader");
        assertFalse(lateResume.isDone(), "queued behind the writer");
        node.commit(earlyReader.key());
        assertTrue(writerResume.isDone());
        assertFalse(lateResume.isDone());
        done(writer, () -> {
            v.set(1);
            return null;
        });
        node.commit(writer.key());
        assertTrue(lateResume.isDone());
        assertEquals(1, done(lateReader, v::get));
        node.commit(lateReader.key());
        assertEquals(List.of(), wounds);
        assertIdle();
    }

    @Test
    void mapOperationsInATransaction() {
        TxMap<String, Integer> m = TxMap.create("accounts");
        m.putCommitted("a", 10);
        m.putCommitted("b", 20);
        Participant t = tx(1, 10);
        done(t, () -> {
            assertEquals(10, m.get("a"));
            assertEquals(10, m.put("a", 11));
            assertNull(m.put("c", 5));
            assertEquals(20, m.remove("b"));
            assertNull(m.get("b"));
            assertFalse(m.containsKey("b"));
            assertTrue(m.containsKey("c"));
            assertEquals(2, m.size());
            assertEquals(Set.of("a", "c"), m.keys());
            return null;
        });
        done(t, () -> {
            assertEquals(Set.of("a", "c"), m.keys(), "a later hop sees the earlier one's writes");
            assertEquals(5, m.remove("c"));
            return null;
        });
        assertEquals(Map.of("a", 10, "b", 20), m.committed());
        node.commit(t.key());
        assertEquals(Map.of("a", 11), m.committed());
        assertIdle(m);
    }

    @Test
    void aWholeMapReadAndAWriterOfAnyKeyExcludeEachOther() {
        TxMap<String, Integer> m = TxMap.create("m");
        m.putCommitted("a", 1);
        Participant counter = tx(1, 10);
        Participant writer = tx(2, 20);
        assertEquals(1, done(counter, m::size));
        CompletableFuture<Void> resume = parked(writer, () -> m.put("new", 1));
        assertEquals(List.of(), wounds);
        assertEquals(1, done(counter, m::size), "no phantom while the count is held");
        node.commit(counter.key());
        assertTrue(resume.isDone());
        done(writer, () -> m.put("new", 1));
        node.commit(writer.key());
        assertEquals(2, m.size());

        Participant laterWriter = tx(3, 40);
        Participant firstCounter = tx(4, 30);
        done(laterWriter, () -> m.remove("a"));
        CompletableFuture<Void> countResume = parked(firstCounter, m::size);
        assertEquals(List.of(new Wound(laterWriter.key(), laterWriter.stamp(), firstCounter.key())), wounds);
        node.abort(laterWriter.key(), "wounded");
        assertTrue(countResume.isDone());
        assertEquals(2, done(firstCounter, m::size));
        node.commit(firstCounter.key());
        assertIdle(m);
    }

    @Test
    void writersOfDifferentKeysDoNotWaitForEachOther() {
        TxMap<String, Integer> m = TxMap.create("m");
        Participant a = tx(1, 10);
        Participant b = tx(2, 20);
        done(a, () -> m.put("x", 1));
        done(b, () -> m.put("y", 2));
        assertEquals(4, node.locksHeld(), "each: the map-wide lock (intention to write) and its key");
        node.commit(b.key());
        node.commit(a.key());
        assertEquals(Map.of("x", 1, "y", 2), m.committed());
        assertIdle(m);
    }

    @Test
    void putCommittedIsForSetupOnly() {
        TxMap<String, Integer> m = TxMap.create("m");
        Participant a = tx(1, 10);
        HopRun<Object> inside = node.run(a, () -> {
            m.putCommitted("x", 1);
            return null;
        });
        assertInstanceOf(IllegalStateException.class, assertInstanceOf(HopRun.Failed.class, inside).error());
        done(a, () -> m.get("x"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.putCommitted("x", 1));
        assertTrue(e.getMessage().contains("holds a lock"), e.getMessage());
        m.putCommitted("y", 2);
        node.commit(a.key());
        m.putCommitted("x", 1);
        assertEquals(Map.of("x", 1, "y", 2), m.committed());
        assertIdle(m);
    }

    @Test
    void theTransactionOfAHop() {
        Participant a = tx(1, 10);
        Transaction[] seen = new Transaction[1];
        done(a, () -> {
            seen[0] = Transaction.current();
            return null;
        });
        assertEquals("origin/1#0", seen[0].id());
        assertNull(Transaction.current(), "unbound after the hop");
        assertThrows(IllegalStateException.class, () -> seen[0].onCommit(() -> { }),
                "hooks are registered while the hop runs");
        node.commit(a.key());
    }

    @Test
    void lamportClock() {
        assertEquals(0, node.clock());
        assertEquals(1, node.tick());
        assertEquals(7, node.observe(7));
        assertEquals(7, node.observe(3));
        tx(1, 42);
        assertEquals(42, node.clock(), "a stamp's order is observed when its hop joins");
        assertEquals(42, node.prepare(node.find(key(1))).lamportClock());
        assertNull(node.find(key(9)));
    }

    @Test
    void oneTransactionsParticipantsAtTwoNodesOfAJvmMayNotShareState() {
        TxVar<Integer> shared = TxVar.of("shared", 1);
        LocalTransactions other = new LocalTransactions((v, s, by) -> { });
        Participant here = tx(1, 10);
        Participant there = other.join(key(1), stamp(10));
        done(here, () -> {
            shared.set(2);
            return null;
        });
        HopRun<Integer> r = other.run(there, shared::get);
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, assertInstanceOf(HopRun.Failed.class, r).error());
        assertTrue(e.getMessage().contains("two nodes"), e.getMessage());
        node.commit(here.key());
        other.commit(there.key());
        assertEquals(2, shared.get());
        assertIdle();
    }

    @Test
    void concurrentBranchesOfOneTransactionKeepBothLayers() throws Exception {
        TxMap<Integer, Integer> m = TxMap.create("m");
        Participant a = tx(1, 10);
        int branches = 4;
        List<CompletableFuture<HopRun<Object>>> runs = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(branches);
        try {
            for (int b = 0; b < branches; b++) {
                int branch = b;
                runs.add(CompletableFuture.supplyAsync(() -> node.run(a, () -> {
                    for (int k = 0; k < 50; k++) {
                        m.put(branch * 100 + k, k);
                    }
                    return null;
                }), threads));
            }
            for (CompletableFuture<HopRun<Object>> r : runs) {
                assertInstanceOf(HopRun.Done.class, r.get());
            }
        } finally {
            threads.shutdown();
        }
        assertEquals(branches * 50, done(a, m::size));
        node.commit(a.key());
        assertEquals(branches * 50, m.committed().size());
        assertIdle(m);
    }

    @Test
    void aWoundSinkMayAbortTheVictimAtOnceOnTheRequestersThread() {
        TxVar<Integer> v = TxVar.of("v", 1);
        List<Object> hookSaw = new ArrayList<>();
        LocalTransactions[] self = new LocalTransactions[1];
        self[0] = new LocalTransactions((victim, s, by) -> self[0].abort(victim, "wounded by " + by));
        Participant later = self[0].join(key(2), stamp(20));
        Participant first = self[0].join(key(1), stamp(10));
        assertInstanceOf(HopRun.Done.class, self[0].run(later, () -> {
            v.set(5);
            Transaction.current().onAbort(() -> hookSaw.add(String.valueOf(Transaction.current())));
            return null;
        }));
        HopRun<Integer> r = self[0].run(first, v::get);
        CompletableFuture<Void> resume = assertInstanceOf(HopRun.Parked.class, r).resume();
        assertTrue(resume.isDone(), "granted as the victim aborted");
        assertEquals(List.of("null"), hookSaw, "the victim's hook runs outside the requester's transaction");
        assertEquals(1, assertInstanceOf(HopRun.Done.class, self[0].run(first, v::get)).value());
        self[0].commit(first.key());
        assertEquals(0, self[0].locksHeld());
    }

    /** A resource manager that logs its calls. */
    static class RecordingResource implements ResourceManager {
        private final String name;
        private final List<String> log;
        boolean failPrepare;
        boolean failCommit;

        RecordingResource(String name, List<String> log) {
            this.name = name;
            this.log = log;
        }

        @Override
        public void prepare() throws Exception {
            log.add(name + ".prepare");
            if (failPrepare) {
                throw new Exception("no room");
            }
        }

        @Override
        public void commit() throws Exception {
            log.add(name + ".commit");
            if (failCommit) {
                throw new Exception("disk gone");
            }
        }

        @Override
        public void rollback() {
            log.add(name + ".rollback");
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
