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
 *
 * <p>Cooperative termination: each participant remembers its <em>peers</em> in a transaction (the
 * hosts before it on the chain's trail when a hop of it joins here, and the nodes its hops sent the
 * chain on to: next hops, split branches, sub-chains), and, for a while, the decisions it applied
 * ({@value #MAX_OUTCOMES} at most, the oldest forgotten). A participant whose originator cannot be
 * reached, or has answered nothing for two ask intervals, asks its peers too (a QUERY naming the
 * originator); a peer that remembers the decision of that attempt, with its secret, answers with it
 * (a DECIDE marked as a peer's, applied here and not acknowledged); a peer that does not answers
 * nothing. So a participant that missed the originator's COMMIT (the originator died during its
 * fan-out) learns it from a peer that got it. Only when no peer answers within the in-doubt window
 * (all are in doubt too, or unreachable) does the participant abort on its own: consistent, unless a
 * participant that committed stays unreachable for the whole window (then this node's part differs
 * from that participant's: the heuristic case, logged). That abort is never told to peers.
 */
final class AtomicHops {
    private static final Logger log = LoggerFactory.getLogger(AtomicHops.class);

    /**
     * The in-doubt window, in milliseconds (system property {@value #IN_DOUBT_PROPERTY}, read when a
     * server starts; default 30 s): how long the originator of a transaction known here may be
     * unreachable before the participant aborts it on its own (presumed abort; had the originator
     * decided commit, this is a heuristic outcome, logged). A transaction goes a fifth of it (at most
     * 5 s) without a decision before the participant asks its originator, and asks again as often;
     * from two such intervals on, or once the originator is unreachable, it asks its peers too.
     */
    static final String IN_DOUBT_PROPERTY = "rpcc.atomic.inDoubtMillis";
    private final long inDoubtNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
            Long.getLong(IN_DOUBT_PROPERTY, 30_000));
    private final long askAfterNanos = Math.min(inDoubtNanos / 5, java.util.concurrent.TimeUnit.SECONDS.toNanos(5));
    /** The most decisions remembered for peers' queries (the oldest forgotten first). */
    static final int MAX_OUTCOMES = 16_384;
    /** The most peers remembered for one transaction. */
    static final int MAX_PEERS = 64;

    /** What this node knows of a transaction that ran hops here. */
    private static final class Known {
        final NodeAddress originator;
        final ChainSecret attemptSecret;
        final long since = System.nanoTime();
        volatile long askedNanos = since;
        /** When asking the originator first failed (it is unreachable), or 0. */
        volatile long unreachableSince;
        /** The other participants this node knows of (names; not this node, not the originator). */
        final Peers peers = new Peers();
        /**
         * When an ABORT from the originator that came while this node was asking is applied, unless a
         * peer tells a COMMIT first (0: none held); and its reason.
         */
        volatile long heldAbortUntil;
        volatile @org.jspecify.annotations.Nullable String heldAbortWhy;

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

    /**
     * The peers of one transaction at this node (their names, at most {@link #MAX_PEERS}, each once):
     * a small array, as a transaction has few (a set per transaction would cost more than its hops).
     */
    private static final class Peers {
        private static final String[] NONE = new String[0];
        /** Guarded by this; replaced, never changed in place. */
        private String[] names = NONE;

        /** Adds {@code name} unless it is there or {@link #MAX_PEERS} are. */
        synchronized void add(String name) {
            String[] n = names;
            if (n.length >= MAX_PEERS) {
                return;
            }
            for (String x : n) {
                if (x.equals(name)) {
                    return;
                }
            }
            String[] more = java.util.Arrays.copyOf(n, n.length + 1);
            more[n.length] = name;
            names = more;
        }

        synchronized boolean isEmpty() {
            return names.length == 0;
        }

        /** The peers now. */
        synchronized List<String> list() {
            return List.of(names);
        }

        @Override
        public synchronized String toString() {
            return java.util.Arrays.toString(names);
        }
    }

    private final Node node;
    private final LocalTransactions engine;
    private final Map<TxKey, Known> known = new ConcurrentHashMap<>();
    /** A decision applied here, as a peer's query is answered with it. */
    private record Outcome(ChainSecret secret, boolean commit, String why) {
    }

    /** The decisions applied here, the oldest forgotten beyond {@link #MAX_OUTCOMES} (guarded by itself). */
    private final java.util.LinkedHashMap<TxKey, Outcome> outcomes = new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TxKey, Outcome> eldest) {
            return size() > MAX_OUTCOMES;
        }
    };
    private final AtomicLong peerQueries = new AtomicLong();
    private final AtomicLong peerAnswers = new AtomicLong();
    private final AtomicLong learnedFromPeers = new AtomicLong();
    private final AtomicLong heldAborts = new AtomicLong();
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
        Known k = known.get(key);
        if (k != null) {
            for (String host : h.path()) { // the hosts before this one on the trail
                addPeer(k, key, host);
            }
        }
        node.originator().atomic().observe(stamp.order());
        return engine.join(key, stamp);
    }

    /**
     * A hop of the atomic chain of {@code h} sends the chain on to {@code server} (a next hop, a
     * split's branch or merge host, a sub-chain's first hop or its creator): a peer of this participant.
     */
    void forwarded(ChainHeader h, String server) {
        TxKey key = h.txKey();
        Known k = key == null ? null : known.get(key);
        if (k != null) {
            addPeer(k, key, server);
        }
    }

    private void addPeer(Known k, TxKey key, String host) {
        if (!host.equals(node.name()) && !host.equals(key.origin()) && !io.rpcc.core.HopPath.isElision(host)) {
            k.peers.add(host);
        }
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
     * hooks or resource managers run, else on it), remembers the decision for its peers' queries, and
     * a DECIDE_ACK goes back on the same connection (not to a peer's answer). A decision for a
     * transaction not known here (decided before, or never here) is acknowledged at once: it has
     * nothing to apply. {@code false} if the secret is not the transaction's (forged).
     */
    boolean decide(TxFrames.Decide d, Channel from) {
        TxKey key = d.key();
        Known k = known.get(key);
        if (k != null && !k.attemptSecret().matches(d.secret())) {
            return false;
        }
        if (d.fromPeer() && k == null) {
            return true; // (decided here before, or asked by no one here: nothing to apply, nothing to acknowledge)
        }
        if (!d.commit() && !d.fromPeer() && k != null && k.askedNanos != k.since && !k.peers.isEmpty()) {
            // an ABORT that comes while this node is asking may be a presumed abort from an originator that
            // restarted under the same name and forgot a COMMIT its earlier run sent some peers: the peers
            // are asked first, and the abort waits one ask interval for a COMMIT from them (a real abort
            // only keeps the locks a little longer; it is acknowledged when the originator sends it again)
            if (k.heldAbortUntil == 0) {
                k.heldAbortWhy = d.why();
                k.heldAbortUntil = System.nanoTime() + askAfterNanos;
                heldAborts.incrementAndGet();
                List<String> peers = k.peers.list();
                TxFrames.Query query = new TxFrames.Query(key.chainId(), k.attemptSecret(), key.origin(), key.attempt(),
                        node.name());
                node.executor().execute(() -> askPeers(key, peers, query));
            }
            return true;
        }
        Runnable apply = () -> {
            if (k != null) {
                synchronized (outcomes) {
                    outcomes.put(key, new Outcome(d.secret(), d.commit(), d.why()));
                }
                if (d.fromPeer()) {
                    learnedFromPeers.incrementAndGet();
                    log.info("node '{}': transaction {} {} here as a peer told (its originator '{}' did not)",
                            node.name(), key, d.commit() ? "commits" : "aborts", key.origin());
                }
                if (d.commit()) {
                    engine.commit(key);
                } else {
                    engine.abort(key, d.why() == null ? "its originator aborted it" : d.why());
                }
                known.remove(key, k);
            }
            if (d.fromPeer()) {
                return; // a peer coordinates nothing: no acknowledgement
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
     * A peer participant asks, on {@code from}, for the decision of a transaction this node did not
     * start (cooperative termination): answered with a DECIDE marked as a peer's if this node
     * remembers the decision it applied for that attempt with that secret; otherwise not at all (no
     * presumed abort: only the originator may presume).
     */
    void peerQuery(TxFrames.Query q, Channel from) {
        Outcome o;
        synchronized (outcomes) {
            o = outcomes.get(q.key());
        }
        if (o == null || !o.secret().matches(q.secret())) {
            return;
        }
        peerAnswers.incrementAndGet();
        node.transport().send(from, new TxFrames.Decide(q.chainId(), q.secret(), q.origin(), q.attempt(), o.commit(),
                o.why(), true));
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
     * DECIDE, or nothing while the chain still runs), and, once its originator is unreachable or it has
     * gone two such intervals without a decision, its peers (an answer is a decision a peer applied;
     * a peer that knows none answers nothing); one whose originator has been unreachable for the
     * in-doubt window (and no peer told it the decision) is aborted here: consistent unless a
     * participant that committed was unreachable for the whole window (logged).
     */
    void sweep(long nowNanos) {
        for (Map.Entry<TxKey, Known> e : known.entrySet()) {
            TxKey key = e.getKey();
            Known k = e.getValue();
            long heldAbort = k.heldAbortUntil;
            if (heldAbort != 0) { // an ABORT waits for the peers' answers (see decide)
                if (nowNanos - heldAbort >= 0 && known.remove(key, k)) {
                    String why = k.heldAbortWhy;
                    node.executor().execute(() -> engine.abort(key, why == null ? "its originator aborted it" : why));
                }
                continue;
            }
            long unreachable = k.unreachableSince;
            if (unreachable != 0 && nowNanos - unreachable > inDoubtNanos) {
                if (known.remove(key, k)) {
                    inDoubtAborts.incrementAndGet();
                    log.warn("node '{}': transaction {} aborted here: its originator '{}' has been unreachable for {} s "
                            + "and none of its peers {} told the decision (presumed abort; had a participant that stayed "
                            + "unreachable committed, this node's part differs from its)",
                            node.name(), key, k.originator().node(), inDoubtNanos / 1_000_000_000L, k.peers);
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
            TxFrames.Query query = new TxFrames.Query(key.chainId(), k.attemptSecret(), key.origin(), key.attempt(),
                    node.name());
            node.transport().send(k.originator().node(), node.addressOf(k.originator()), query)
                    .whenComplete((ok, failed) -> {
                        if (failed == null) {
                            k.unreachableSince = 0;
                        } else if (k.unreachableSince == 0) {
                            k.unreachableSince = nowNanos;
                        }
                    });
            if (!k.peers.isEmpty() && (unreachable != 0 || nowNanos - k.since >= 2 * askAfterNanos)) {
                List<String> peers = k.peers.list();
                node.executor().execute(() -> askPeers(key, peers, query)); // (a resolver may block)
            }
        }
    }

    /** Sends {@code query} to each of {@code peers} (cooperative termination); no answer is awaited. */
    private void askPeers(TxKey key, List<String> peers, TxFrames.Query query) {
        for (String peer : peers) {
            var address = node.router().resolve(peer);
            if (address.isEmpty()) {
                log.debug("node '{}': no address for '{}', a peer in transaction {}", node.name(), peer, key);
                continue;
            }
            peerQueries.incrementAndGet();
            node.transport().send(peer, address.get(), query).whenComplete((ok, e) -> {
                if (e != null) {
                    log.debug("node '{}': could not ask '{}' about transaction {}: {}", node.name(), peer, key,
                            e.toString());
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

    /** Queries sent to peer participants (cooperative termination). */
    long peerQueries() {
        return peerQueries.get();
    }

    /** Peers' queries answered with a decision applied here. */
    long peerAnswers() {
        return peerAnswers.get();
    }

    /** Decisions applied here as a peer told them (the originator's did not arrive). */
    long learnedFromPeers() {
        return learnedFromPeers.get();
    }

    /** ABORTs from originators held to ask the peers first (they came while this node was asking). */
    long heldAborts() {
        return heldAborts.get();
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
