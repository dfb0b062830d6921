package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The frames of an atomic chain's commit protocol (protocol version 9). A participant (a node where
 * a hop of the chain ran) sends its {@link Vote} to the chain's originator before the hop goes on;
 * the originator, at the chain's end, sends one {@link Decide} to every voter, which answers a
 * {@link DecideAck}; a participant whose lock an older transaction needs sends a {@link Wound} to
 * the holder's originator. Each frame names one attempt of one chain ({@link TxKey}: the origin is
 * the originator's name, the chain id and the attempt) and carries that attempt's secret
 * ({@link ChainHeader#attemptSecret()}): only a node that saw a hop of the attempt knows it, so no
 * other can vote, decide, acknowledge or wound.
 */
@EngineSpi
public final class TxFrames {
    /** The most characters of a reason ({@link Vote#why}, {@link Decide#why}, {@link Wound#by}) on the wire. */
    public static final int MAX_REASON_CHARS = 2048;

    private TxFrames() {
    }

    /** One of the four frames. */
    public sealed interface TxFrame permits Vote, Decide, DecideAck, Wound, Query {
        /** The chain's number at its originator. */
        long chainId();

        /** The chain attempt's secret ({@link ChainHeader#attemptSecret()}). */
        ChainSecret secret();

        /** Which sending of the chain (the transaction is the attempt). */
        int attempt();
    }

    /**
     * VOTE (participant to originator): the participant prepared its part of the transaction after a
     * hop, and holds its locks until the decision. It carries a slice of the hop's termination credit
     * (like a partial reply's), so the chain's end at the originator implies every vote is home.
     *
     * @param chain the chain's number at the node it goes to, and the secret of the frames to that node
     * @param attempt the attempt
     * @param credit the slice of the hop's credit the vote returns (never zero)
     * @param voter the participant's address (where the decision goes)
     * @param hop the hop after which it voted
     * @param ballot how it voted
     */
    public record Vote(ChainKey chain, int attempt, Credit credit, NodeAddress voter, int hop, Ballot ballot)
            implements TxFrame {
        public Vote {
            Objects.requireNonNull(chain, "chain");
            Objects.requireNonNull(credit, "credit");
            Objects.requireNonNull(voter, "voter");
            Objects.requireNonNull(ballot, "ballot");
        }

        @Override
        public long chainId() {
            return chain.chainId();
        }

        @Override
        public ChainSecret secret() {
            return chain.secret();
        }

        /** Whether it can commit. */
        public boolean yes() {
            return ballot.yes();
        }

        /** For a no, why not, else {@code null}. */
        public @Nullable String why() {
            return ballot.why();
        }

        /** The participant's Lamport clock. */
        public long clock() {
            return ballot.clock();
        }

        /** How many partial replies the participant holds for the chain (0 in this version). */
        public long heldReplies() {
            return ballot.heldReplies();
        }
    }

    /**
     * A participant's vote, as a VOTE carries it.
     *
     * @param yes whether it can commit
     * @param why for a no, why not (a sentence for the user), else {@code null}
     * @param clock the participant's Lamport clock
     * @param heldReplies how many partial replies the participant holds for the chain, released on commit
     */
    public record Ballot(boolean yes, @Nullable String why, long clock, long heldReplies) {
    }

    /**
     * DECIDE (originator to participant): the transaction commits or aborts. Sent again until acknowledged.
     * A participant that remembers the decision it applied also answers a peer's {@link Query} with a
     * DECIDE ({@code fromPeer}): the receiver applies it as the originator's but sends no
     * {@link DecideAck} (the peer coordinates nothing).
     *
     * @param chainId the chain's number at its originator
     * @param secret the attempt's secret
     * @param origin the originator's node name (with the chain id and attempt, the {@link TxKey})
     * @param attempt the attempt
     * @param commit commit ({@code true}) or abort
     * @param why for an abort, why (a sentence), else {@code null}
     * @param fromPeer a participant's answer to a peer's query (not acknowledged), not the originator's
     */
    public record Decide(long chainId, ChainSecret secret, String origin, int attempt, boolean commit,
                         @Nullable String why, boolean fromPeer) implements TxFrame {
        public Decide {
            Objects.requireNonNull(secret, "secret");
            Objects.requireNonNull(origin, "origin");
        }

        /** The originator's decision (acknowledged). */
        public Decide(long chainId, ChainSecret secret, String origin, int attempt, boolean commit,
                      @Nullable String why) {
            this(chainId, secret, origin, attempt, commit, why, false);
        }

        /** The transaction decided. */
        public TxKey key() {
            return new TxKey(origin, chainId, attempt);
        }
    }

    /**
     * DECIDE_ACK (participant to originator): the decision is applied at {@code node}; on a commit,
     * the {@code released} held replies went out before this frame (on the same connection).
     *
     * @param chainId the chain's number at its originator
     * @param secret the attempt's secret
     * @param attempt the attempt
     * @param node the participant's node name
     * @param clock the participant's Lamport clock
     * @param released how many held partial replies it released (0 on abort)
     */
    public record DecideAck(long chainId, ChainSecret secret, int attempt, String node, long clock, long released)
            implements TxFrame {
        public DecideAck {
            Objects.requireNonNull(secret, "secret");
            Objects.requireNonNull(node, "node");
        }
    }

    /**
     * QUERY (participant to originator, or to a peer participant): the participant has heard no
     * decision for a while. Sent to the originator ({@code origin} is the receiver), it is answered
     * with a DECIDE: the decision if it has made it, ABORT if it does not know the transaction
     * (presumed abort: it restarted, or the attempt ended long ago), nothing while the chain still
     * runs. Sent to a peer participant (cooperative termination: {@code origin} is another node), it
     * is answered with a DECIDE marked {@code fromPeer} only if that peer remembers the decision it
     * applied for this attempt with this secret; otherwise with nothing (never a presumed abort).
     *
     * @param chainId the chain's number at its originator
     * @param secret the attempt's secret
     * @param origin the originator's node name (with the chain id and attempt, the {@link TxKey})
     * @param attempt the attempt
     * @param node the participant's node name (the asker)
     */
    public record Query(long chainId, ChainSecret secret, String origin, int attempt, String node) implements TxFrame {
        public Query {
            Objects.requireNonNull(secret, "secret");
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(node, "node");
        }

        /** The transaction asked about. */
        public TxKey key() {
            return new TxKey(origin, chainId, attempt);
        }
    }

    /**
     * WOUND (participant to the victim's originator): an older transaction ({@code by}) needs a lock
     * this attempt holds; abort the attempt unless it has decided to commit.
     *
     * @param chainId the victim's chain number at its originator
     * @param secret the victim attempt's secret
     * @param attempt the victim's attempt
     * @param node where the lock is (the participant's node name)
     * @param by the transaction that wounds (its {@link TxKey}, as text, for the user's message)
     */
    public record Wound(long chainId, ChainSecret secret, int attempt, String node, String by) implements TxFrame {
        public Wound {
            Objects.requireNonNull(secret, "secret");
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(by, "by");
        }
    }
}
