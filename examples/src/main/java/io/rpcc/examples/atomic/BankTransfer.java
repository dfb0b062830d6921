package io.rpcc.examples.atomic;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.core.TypeRegistry;
import io.rpcc.examples.Options;
import io.rpcc.examples.Timing;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bank transfers across three sites on the emulated wide area, as atomic chains: the paying bank
 * ({@code bank-a} in Redmond or {@code bank-b} in Beijing) debits, the clearing house in Cambridge
 * records the transfer, the receiving bank credits. Two clients (Mountain View and Beijing) send
 * transfers both ways at once between a handful of accounts, so they conflict; some overdraw and are
 * refused. Every transfer commits at all three sites or at none: the money in the banks stays the
 * same, the clearing house's ledger matches the banks' movements, and each notification (sent on
 * commit only) belongs to a committed debit or credit.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar bank [--transfers 200] [--in-flight 8]
 * </pre>
 */
public final class BankTransfer {
    private BankTransfer() {
    }

    /** What a run did. */
    public record Report(int committed, int refused, long moneyBefore, long moneyAfter, long ledgerTotal,
                         long movedByCommitted, long notified, long expectedNotifications, double medianMs,
                         double decidedMedianMs, double plainMedianMs, String refusal) {
        /** Whether atomicity held: money conserved, ledger and notifications match the committed transfers. */
        public boolean consistent() {
            return moneyBefore == moneyAfter && ledgerTotal == movedByCommitted && notified == expectedNotifications;
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--transfers", "--in-flight");
        Report r = run(o.integer("--transfers", 200), o.integer("--in-flight", 8));
        System.out.printf(Locale.ROOT, "bank transfers across Redmond, Beijing and Cambridge (atomic chains):%n"
                        + "  committed %d, refused %d (overdrafts; nothing changed anywhere)%n"
                        + "  money in the banks: %d before, %d after%n"
                        + "  clearing house ledger: %d; moved by committed transfers: %d%n"
                        + "  notifications sent on commit: %d of %d expected%n"
                        + "  median latency of an uncontended transfer: atomic %.1f ms (decided after %.1f ms; the rest"
                        + " is the commit's round trip to the farthest bank), the same chain not atomic %.1f ms%n"
                        + "  a refused transfer said: %s%n  consistent: %s%n",
                r.committed(), r.refused(), r.moneyBefore(), r.moneyAfter(), r.ledgerTotal(), r.movedByCommitted(),
                r.notified(), r.expectedNotifications(), r.medianMs(), r.decidedMedianMs(), r.plainMedianMs(), r.refusal(), r.consistent());
        if (!r.consistent()) {
            throw new IllegalStateException("a transfer committed at some sites but not at others: " + r);
        }
    }

    /** Sends {@code transfers} transfers, {@code inFlight} at a time from each of two clients. */
    public static Report run(int transfers, int inFlight) throws Exception {
        Map<String, Long> opening = Map.of("alice", 10_000L, "bob", 10_000L, "carol", 500L);
        Bank a = new Bank("bank-a", opening);
        Bank b = new Bank("bank-b", opening);
        Bank clearing = new Bank("clearing", Map.of());
        long before = total(a) + total(b);
        ChainingFunctionSource route = ChainingFunctionSource.javaResource(BankTransfer.class, "/chains/TransferRoute.java");
        try (WanCluster wan = WanCluster.of(WanTopology.paperFigure7(), TypeRegistry.of(Transfer.class))) {
            wan.server("bank-a", WanTopology.REDMOND, a::serve);
            wan.server("bank-b", WanTopology.BEIJING, b::serve);
            wan.server("clearing", WanTopology.CAMBRIDGE, clearing::serve);
            List<RpccClient> clients = List.of(wan.client("teller-mv", WanTopology.MOUNTAIN_VIEW),
                    wan.client("teller-bj", WanTopology.BEIJING));
            // uncontended latency first: a transfer as an atomic chain, and the same hops as a plain chain
            List<Double> atomic = new ArrayList<>();
            List<Double> decided = new ArrayList<>();
            List<Double> plain = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Transfer there = new Transfer("lat-" + i, "bank-a", "alice", "bank-b", "bob", 1);
                Transfer back = new Transfer("lat-back-" + i, "bank-b", "bob", "bank-a", "alice", 1);
                // the same atomic chain with its replies: its result is the decision, done when every bank applied it
                long t0 = System.nanoTime();
                Transfer decidedOne = new Transfer("lat-decided-" + i, "bank-a", "alice", "bank-b", "bob", 1);
                ReplySet<Object> timed = clients.get(0).startChainWithReplies(call(route, decidedOne, true), Object.class);
                timed.result().join();
                decided.add((System.nanoTime() - t0) / 1e6);
                timed.whenDone().join();
                atomic.add(Timing.millis(() -> send(clients.get(0), route, there, true).join()));
                plain.add(Timing.millis(() -> send(clients.get(0), route, back, false).join()));
            }
            AtomicInteger committed = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            long[] moved = {10}; // the ten timed atomic transfers of 1
            String[] refusal = {"(none)"};
            Random random = new Random(42);
            List<String> banks = List.of("bank-a", "bank-b");
            List<String> holders = List.of("alice", "bob", "carol");
            List<CompletableFuture<Void>> inFlightNow = new ArrayList<>();
            for (int i = 0; i < transfers; i++) {
                int from = random.nextInt(2);
                Transfer t = new Transfer("t-" + i, banks.get(from), holders.get(random.nextInt(3)), banks.get(1 - from),
                        holders.get(random.nextInt(3)), 1 + random.nextInt(2_000));
                RpccClient client = clients.get(i % 2);
                inFlightNow.add(send(client, route, t, true).handle((res, e) -> {
                    synchronized (moved) {
                        if (e == null) {
                            committed.incrementAndGet();
                            moved[0] += t.amount();
                        } else if (cause(e) instanceof TransactionAbortedException aborted) {
                            refused.incrementAndGet();
                            refusal[0] = aborted.getMessage();
                        } else {
                            throw new CompletionException(e);
                        }
                    }
                    return null;
                }));
                if (inFlightNow.size() >= 2 * inFlight) {
                    inFlightNow.remove(0).join();
                }
            }
            inFlightNow.forEach(CompletableFuture::join);
            // a transfer's future completes at its commit decision; each bank applies the commit when the
            // decision reaches it: the books are read once every bank has acknowledged (the chains finished)
            for (RpccClient c : clients) {
                c.shutdown(Duration.ofSeconds(30));
            }
            long ledger = clearing.committed().values().stream().mapToLong(Long::longValue).sum();
            long expected = 2L * (committed.get() + 10); // a debit and a credit each, the ten timed atomic ones too
            return new Report(committed.get(), refused.get(), before, total(a) + total(b), ledger, moved[0],
                    a.notified() + b.notified(), expected, Timing.median(atomic), Timing.median(decided), Timing.median(plain), refusal[0]);
        }
    }

    private static CompletableFuture<ChainResult> send(RpccClient client, ChainingFunctionSource route, Transfer t,
                                                       boolean atomic) {
        return client.startChain(call(route, t, atomic));
    }

    private static ChainCall call(ChainingFunctionSource route, Transfer t, boolean atomic) {
        // the plain chain runs the same three hops with read-only functions: outside an atomic chain a TxMap
        // can be read (its committed value) but not written
        ChainState state = ChainState.of("step", "debited").with("clearing", "clearing")
                .with("clear", atomic ? "clear" : "peek").with("credit", atomic ? "credit" : "peek");
        ChainCall call = ChainCall.to(t.fromBank(), atomic ? "debit" : "peek").params(t).chainingFunction(route)
                .state(state).timeout(Duration.ofSeconds(60));
        return atomic ? call.atomic() : call;
    }

    private static Throwable cause(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private static long total(Bank bank) {
        return bank.committed().values().stream().mapToLong(Long::longValue).sum();
    }
}
