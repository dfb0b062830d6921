package io.rpcc.core.internal.wire;

/**
 * A GOAWAY frame: its sender writes nothing more on the connection after it. A node that lets an
 * idle connection go sends one instead of closing at once, and goes on reading and serving what
 * the peer wrote before the peer read it; the peer stops handing the connection new frames (they
 * go on a new connection), answers with a GOAWAY of its own, and closes. The first node closes once
 * it reads that answer (or, if none comes, after its ping timeout). So a request a peer wrote at the
 * moment the connection was let go is either read and served, or refused before it left the peer
 * and sent again on another connection: never lost in between.
 *
 * @param reason why the sender goes away: {@link #IDLE}, the only reason of this protocol version
 */
public record GoAwayFrame(byte reason) {
    /** The connection carried no frame other than PINGs for the sender's idle timeout. */
    public static final byte IDLE = 0;

    /** The GOAWAY of an idle connection. */
    public static final GoAwayFrame IDLE_CONNECTION = new GoAwayFrame(IDLE);
}
