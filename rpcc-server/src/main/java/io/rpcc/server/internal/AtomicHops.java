package io.rpcc.server.internal;

import io.netty.channel.Channel;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.server.internal.atomic.LocalTransactions;
import io.rpcc.server.internal.atomic.Participant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The participant's side of atomic chains at a server: the node's {@link LocalTransactions}, and
 * what the protocol knows of each transaction that ran hops here (its originator, its attempt's
 * secret, where its frames back go). After each hop of an atomic chain here the participant
 * prepares and sends one VOTE, with a slice of the hop's credit, to the hop's reply-to node (the
 * originator, or a sub-chain's creator, which relays it on with its sub-chain's credit); a DECIDE
 * commits or aborts it and is answered with a DECIDE_ACK; a wound goes to the victim's originator
 * as a WOUND; a cancel of the chain aborts it here.
 */
final class AtomicHops {
    private static final Logger log = LoggerFactory.getLogger(AtomicHops.class);

    /**
     * The in-doubt window, in milliseconds (system property {@value #IN_DOUBT_PROPERTY}, read when a
     * server starts; default 30 s): how long the originator of a transaction known here may be
     * unreachable before the participant aborts it on its own (presumed abort; had the originator
     * decided commit, this is a heuristic outcome, logged). A transaction goes a fifth of it (at most
     * 5 s) without a decision before the participant asks its originator, and asks again as often.
     */
    static final String IN_DOUBT_PROPERTY = "rpcc.atomic.inDoubtMillis";
    private final long inDoubtNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
            Long.getLong(IN_DOUBT_PROPERTY, 30_000));
    private final long askAfterNanos = Math.min(inDoubtNanos / 5, java.util.concurrent.TimeUnit.SECONDS.toNanos(5));

    /** What this node knows of a transaction that ran hops here. */
    private static final class Known {
        final NodeAddress originator;
        final ChainSecret attemptSecret;
        final long since = System.nanoTime();
        volatile long askedNanos = since;
        /** When asking the originator first failed (it is unreachable), or 0. */
        volatile long unreachableSince;

        Known(NodeAddress originator, ChainSecret attemptSecret) {
            this.originator = originator;
            this.attemptSecret = attemptSecret;
        }

        ChainSecret attemptSecret() {
            return attemptSecret;
        }

        NodeAddress originator() {
            return originator;
        }
    }

    private final Node node;
    private final LocalTransactions engine;
    private final Map<TxKey, Known> known = new ConcurrentHashMap<>();
    private final AtomicLong votes = new AtomicLong();
    /** This node's address in its votes (made once). */
    private volatile NodeAddress voter;
    private final AtomicLong woundsSent = new AtomicLong();
    private final AtomicLong inDoubtAborts = new AtomicLong();
    private final AtomicLong queries = new AtomicLong();

    AtomicHops(Node node) {
        this.node = node;
        this.engine = new LocalTransactions(this::wound);
    }

    /** The node's transactions. */
    LocalTransactions engine() {
        return engine;
    }

    /**
     * The participant of the transaction of hop {@code h} (an atomic chain's), made if new; the
     * stamp it brings is observed on the node's Lamport clock, and taken if it comes first.
     *
     * @throws IllegalStateException if the transaction ended here (a late hop of it)
     */
    Participant join(ChainHeader h) {
        TxKey key = h.txKey();
        TxStamp stamp = h.tx();
        known.putIfAbsent(key, new Known(h.originator(), h.attemptSecret()));
        node.originator().atomic().observe(stamp.order());
        return engine.join(key, stamp);
    }

    /**
     * After a hop of an atomic chain ran here (its functions finished, or it failed): prepares the
     * participant and sends its VOTE with a slice of {@code credit} (the hop's) to the hop's reply-to
     * node; returns the rest of the credit, which goes on with the chain (or its failure). A hop that
     * left no participant here (it never joined) sends nothing and keeps all of its credit; so does a
     * hop that voted already, or that the closing node abandoned and reported with its credit
     * ({@code replies}, the hop's, decide: see {@link HopReplies#vote}). If {@code hold}, the VOTE is
     * held in {@code replies} while the hop's chaining step runs ({@link HopReplies#holdVote}: it goes
     * with the chain's result, or alone before the chain's next frame); else it is sent now.
     */
    Credit voteAfter(ChainHeader h, Credit credit, HopReplies replies, boolean hold) {
        TxKey key = h.txKey();
        Participant p = key == null ? null : engine.find(key);
        if (p == null || credit.isZero()) {
            return credit;
        }
        Credit slice = replies.vote(credit);
        if (slice == null) {
            return credit;
        }
        LocalTransactions.Vote v = engine.prepare(p);
        votes.incrementAndGet();
        NodeAddress self = voter;
        if (self == null || self.port() != node.transport().port()) { // (the port is known once the node listens)
            self = new NodeAddress(node.name(), node.transport().advertisedHost(), node.transport().port());
            voter = self;
        }
        TxFrames.Vote frame = new TxFrames.Vote(new io.rpcc.core.internal.wire.ChainKey(h.chainId(), h.replySecret()), h.attempt(), slice, self, h.hop(),
                new TxFrames.Ballot(v.yes(), v.why(), Math.max(v.lamportClock(), node.originator().atomic().clock()), 0));
        HopReplies.HeldVote vote = new HopReplies.HeldVote(h.replyTo().node(), node.replyAddress(h), frame);
        if (hold) {
            replies.holdVote(vote);
        } else {
            sendVote(node, vote);
        }
        return slice; // (the rest: the two halves are equal)
    }

    /** Sends the VOTE {@code replies} holds, if it still holds one (the hop's chaining step is done). */
    void sendHeldVote(HopReplies replies) {
        sendVote(node, replies.takeHeldVote());
    }

    /** Sends {@code vote} (if not {@code null}) from {@code node}, alone. */
    static void sendVote(Node node, HopReplies.HeldVote vote) {
        if (vote != null) {
            node.transport().send(vote.peer(), vote.address(), vote.frame()).whenComplete((ok, e) -> {
                if (e != null) {
                    voteUnsent(node, vote, e);
                }
            });
        }
    }

    /** Logs that {@code vote} could not be sent (its transaction ends by its originator's timeout or a query). */
    static void voteUnsent(Node node, HopReplies.HeldVote vote, Throwable e) {
        TxFrames.Vote v = (TxFrames.Vote) vote.frame();
        log.warn("node '{}': the vote of transaction {} after hop {} could not be sent to '{}': {}", node.name(),
                v.chainId(), v.hop(), vote.peer(), e.toString());
    }

    /**
     * A DECIDE arrived on {@code from}: the participant commits or aborts (off the event loop if
     * hooks or resource managers run, else on it) and a DECIDE_ACK goes back on the same connection. A decision for a
     * transaction not known here (decided before, or never here) is acknowledged at once: it has
     * nothing to apply. {@code false} if the secret is not the transaction's (forged).
     */
    boolean decide(TxFrames.Decide d, Channel from) {
        TxKey key = d.key();
        Known k = known.get(key);
        if (k != null && !k.attemptSecret().matches(d.secret())) {
            return false;
        }
        Runnable apply = () -> {
            if (k != null) {
                if (d.commit()) {
                    engine.commit(key);
                } else {
                    engine.abort(key, d.why() == null ? "its originator aborted it" : d.why());
                }
                known.remove(key, k);
            }
            node.transport().send(from, new TxFrames.DecideAck(d.chainId(), d.secret(), d.attempt(), node.name(),
                    node.originator().atomic().clock(), 0));
        };
        // a commit that runs none of the application's code (no hook, no resource manager: writes applied,
        // locks released, waiters resubmitted to the executor) never blocks: it runs here, on the event loop,
        // without a hand-off; hooks, resource managers and aborts (a hop may still be running) go to the executor
        if (k == null || d.commit() && engine.commitRunsNoUserCode(key)) {
            apply.run();
        } else {
            node.executor().execute(apply);
        }
        return true;
    }

    /**
     * The chain {@code origin#chainId} was cancelled (its CANCEL reached this node): every attempt
     * of it that has a participant here aborts.
     */
    void cancelled(String origin, long chainId) {
        List<TxKey> keys = new ArrayList<>(1);
        for (TxKey key : known.keySet()) {
            if (key.chainId() == chainId && key.origin().equals(origin)) {
                keys.add(key);
            }
        }
        if (keys.isEmpty()) {
            return;
        }
        node.executor().execute(() -> {
            for (TxKey key : keys) {
                engine.abort(key, "its chain was cancelled by its originator");
                known.remove(key);
            }
        });
    }

    /** The engine wounded {@code victim} for {@code by}: its originator is told, unless it is unknown here. */
    private void wound(TxKey victim, TxStamp victimStamp, TxKey by) {
        Known k = known.get(victim);
        if (k == null) {
            return;
        }
        woundsSent.incrementAndGet();
        CompletableFuture<Void> sent = node.transport().send(k.originator().node(), node.addressOf(k.originator()),
                new TxFrames.Wound(victim.chainId(), k.attemptSecret(), victim.attempt(), node.name(), by.toString()));
        sent.whenComplete((ok, e) -> {
            if (e != null) {
                log.warn("node '{}': the wound of transaction {} could not be sent to its originator: {}", node.name(),
                        victim, e.toString());
            }
        });
    }

    /**
     * Called by the node's periodic sweep at {@code nowNanos}: every transaction known here that has
     * gone a fifth of the in-doubt window (at most 5 s) without a decision asks its originator (QUERY; the answer is a
     * DECIDE, or nothing while the chain still runs); one whose originator has been unreachable for
     * the in-doubt window is aborted here.
     */
    void sweep(long nowNanos) {
        for (Map.Entry<TxKey, Known> e : known.entrySet()) {
            TxKey key = e.getKey();
            Known k = e.getValue();
            long unreachable = k.unreachableSince;
            if (unreachable != 0 && nowNanos - unreachable > inDoubtNanos) {
                if (known.remove(key, k)) {
                    inDoubtAborts.incrementAndGet();
                    log.warn("node '{}': transaction {} aborted here: its originator '{}' has been unreachable for {} s "
                            + "(presumed abort; had it decided to commit, this node's part differs from the others')",
                            node.name(), key, k.originator().node(), inDoubtNanos / 1_000_000_000L);
                    node.executor().execute(() -> engine.abort(key, "its originator '" + k.originator().node()
                            + "' could not be reached for the in-doubt window"));
                }
                continue;
            }
            if (nowNanos - k.askedNanos < askAfterNanos) {
                continue;
            }
            k.askedNanos = nowNanos;
            queries.incrementAndGet();
            node.transport().send(k.originator().node(), node.addressOf(k.originator()),
                    new TxFrames.Query(key.chainId(), k.attemptSecret(), key.attempt(), node.name()))
                    .whenComplete((ok, failed) -> {
                        if (failed == null) {
                            k.unreachableSince = 0;
                        } else if (k.unreachableSince == 0) {
                            k.unreachableSince = nowNanos;
                        }
                    });
        }
    }

    /** Transactions aborted here because their originator stayed unreachable (presumed abort). */
    long inDoubtAborts() {
        return inDoubtAborts.get();
    }

    /** Queries sent to originators. */
    long queries() {
        return queries.get();
    }

    /** Votes sent. */
    long votes() {
        return votes.get();
    }

    /** Wounds sent. */
    long woundsSent() {
        return woundsSent.get();
    }

    /** Transactions known here (with a participant or recently ended). */
    int known() {
        return known.size();
    }
}
