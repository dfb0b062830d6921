package io.rpcc.examples.atomic;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Classic two-phase commit over rpcc calls, the yardstick for atomic chains in {@link AtomicFigures}: the
 * same two steps as a plain chain, then a coordinator at the client that, after the chain's result, sends
 * PREPARE to every participant at once, waits for every vote, then sends COMMIT (or ABORT) to every
 * participant at once and waits for every acknowledgement. Nothing rides with the chain: the votes take a
 * round of their own.
 *
 * <p>Each server runs a {@link Participant}: a step writes into the transaction's shadow copy under a
 * lock on the key it writes (strict two-phase locking: the lock is taken at the write and held through
 * PREPARE until COMMIT or ABORT); COMMIT applies the shadow copy to the committed store and releases the
 * locks. A write to a key another transaction holds fails the step (no waiting: the chain fails and the
 * coordinator aborts).
 */
final class PlainTwoPhaseCommit {
    /** The step's service function name. */
    static final String WRITE = "tpc-write";
    /** PREPARE's service function name: answers {@code "yes"} or {@code "no"}. */
    static final String PREPARE = "tpc-prepare";
    /** COMMIT's service function name: applies the shadow copy, answers {@code "ack"}. */
    static final String COMMIT = "tpc-commit";
    /** ABORT's service function name: drops the shadow copy, answers {@code "ack"}. */
    static final String ABORT = "tpc-abort";

    private final RpccClient client;
    private final List<String> participants;
    private final ChainCall steps;

    /**
     * A coordinator at {@code client} for transactions whose two steps run at {@code first} then
     * {@code second}, the participants it prepares and commits.
     */
    PlainTwoPhaseCommit(RpccClient client, String first, String second) {
        this.client = client;
        this.participants = List.of(first, second);
        this.steps = ChainCall.along(StaticRoute.of(StaticRoute.hop(first, WRITE), StaticRoute.hop(second, WRITE)), "")
                .timeout(Duration.ofSeconds(30));
    }

    /** One transaction's progress: {@code decision} completes when every vote is home, {@code done} when every acknowledgement is. */
    record Run(CompletableFuture<Boolean> decision, CompletableFuture<Boolean> done) {
    }

    /**
     * Runs transaction {@code txId}: both steps write {@code txId} under {@code key}, then the two rounds.
     * Its futures complete with {@code true} if it committed, {@code false} if it aborted.
     */
    Run start(String txId, String key) {
        CompletableFuture<Boolean> decision = client.startChain(steps.params(txId + " " + key + " " + txId))
                .handle((ChainResult r, Throwable failure) -> failure == null)
                .thenCompose(chainOk -> chainOk ? prepareAll(txId) : CompletableFuture.completedFuture(false));
        CompletableFuture<Boolean> done = decision.thenCompose(commit -> {
            List<CompletableFuture<ChainResult>> acks = new ArrayList<>();
            for (String p : participants) {
                acks.add(client.call(p, commit ? COMMIT : ABORT, txId));
            }
            return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).thenApply(v -> commit);
        });
        return new Run(decision, done);
    }

    /** The vote round: PREPARE to every participant at once; {@code true} if every one votes yes. */
    private CompletableFuture<Boolean> prepareAll(String txId) {
        List<CompletableFuture<Boolean>> votes = new ArrayList<>();
        for (String p : participants) {
            votes.add(client.call(p, PREPARE, txId).handle((r, failure) -> failure == null && "yes".equals(r.value())));
        }
        return CompletableFuture.allOf(votes.toArray(CompletableFuture[]::new))
                .thenApply(v -> votes.stream().allMatch(CompletableFuture::join));
    }

    /**
     * A server's part in {@link PlainTwoPhaseCommit}: a committed key-value store, a lock per key naming the
     * transaction that holds it, and a shadow copy per open transaction id.
     */
    static final class Participant {
        private final String node;
        private final AtomicLong appliedAt;
        private final Map<String, String> committed = new ConcurrentHashMap<>();
        private final Map<String, String> lockHolders = new ConcurrentHashMap<>();
        private final Map<String, Shadow> open = new ConcurrentHashMap<>();

        /** A transaction's pending writes and the keys it has locked. */
        private static final class Shadow {
            final Map<String, String> writes = new HashMap<>();
            boolean prepared;
        }

        /**
         * A participant at server {@code node}; each commit it applies raises {@code appliedAt} to the
         * {@link System#nanoTime()} of the moment it was applied.
         */
        Participant(String node, AtomicLong appliedAt) {
            this.node = node;
            this.appliedAt = appliedAt;
        }

        /** Adds the four service functions (the step, PREPARE, COMMIT, ABORT) to a server being built. */
        RpccServer.Builder serve(RpccServer.Builder b) {
            return b.service(WRITE, this::write).service(PREPARE, p -> prepare((String) p))
                    .service(COMMIT, p -> commit((String) p)).service(ABORT, p -> abort((String) p));
        }

        /** The step: registers the transaction id, locks the key and writes the value into the shadow copy. */
        private Object write(Object params) {
            String[] f = ((String) params).split(" ", 3);
            String txId = f[0];
            String key = f[1];
            Shadow s = open.computeIfAbsent(txId, k -> new Shadow());
            synchronized (s) {
                if (s.prepared) {
                    throw new IllegalStateException("2PC participant " + node + ": transaction " + txId
                            + " is prepared and cannot write " + key + " any more; run the write before the vote round");
                }
                String holder = lockHolders.putIfAbsent(key, txId);
                if (holder != null && !holder.equals(txId)) {
                    throw new IllegalStateException("2PC participant " + node + ": key " + key + " is locked by transaction "
                            + holder + ", so " + txId + " cannot write it; the coordinator aborts " + txId);
                }
                s.writes.put(key, f[2]);
            }
            return params;
        }

        /** The vote: yes if the transaction is known here (its locks stay held until COMMIT or ABORT). */
        private Object prepare(String txId) {
            Shadow s = open.get(txId);
            if (s == null) {
                return "no";
            }
            synchronized (s) {
                s.prepared = true;
            }
            return "yes";
        }

        /** Applies the shadow copy to the committed store, then releases the transaction's locks. */
        private Object commit(String txId) {
            Shadow s = open.remove(txId);
            if (s == null) {
                throw new IllegalStateException("2PC participant " + node + ": COMMIT of transaction " + txId
                        + ", which is not open here; the coordinator must PREPARE it first");
            }
            synchronized (s) {
                if (!s.prepared) {
                    throw new IllegalStateException("2PC participant " + node + ": COMMIT of transaction " + txId
                            + " before its PREPARE; the coordinator must collect every vote first");
                }
                committed.putAll(s.writes);
                s.writes.keySet().forEach(k -> lockHolders.remove(k, txId));
            }
            appliedAt.accumulateAndGet(System.nanoTime(), Math::max);
            return "ack";
        }

        /** Drops the shadow copy and releases the transaction's locks. */
        private Object abort(String txId) {
            Shadow s = open.remove(txId);
            if (s != null) {
                synchronized (s) {
                    s.writes.keySet().forEach(k -> lockHolders.remove(k, txId));
                }
            }
            return "ack";
        }

        /** The committed value of {@code key}, or null. */
        String committed(String key) {
            return committed.get(key);
        }

        /** How many keys are locked now. */
        int locked() {
            return lockHolders.size();
        }
    }
}
