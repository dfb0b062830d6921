package io.rpcc.core.internal.wire;

/**
 * The frame types of the rpcc wire protocol, version {@link #PROTOCOL_VERSION}; {@code docs/reference/protocol.md}
 * is the full specification. Version 2 added the chain secret; version 3 the version range in the
 * HELLO and stable error numbers with structured failure fields; version 9 atomic chains (header
 * field 23, the frames VOTE, DECIDE, DECIDE_ACK, WOUND and QUERY); version 10 the GOAWAY frame (an idle
 * connection let go without losing what the peer was writing).
 *
 * <pre>
 * frame   := length:int32 (bytes that follow, big-endian) version:int8 type:int8 payload
 * HELLO   := min:varint max:varint node host port:varint maxFrameSize:varint   (first frame each way;
 *            its version byte is always {@link #HELLO_VERSION}, whatever versions the sender speaks)
 * REQUEST := header credit params:value state                      (run a hop; the header starts with chain,
 *            and ends with field 22, stream:varlong: the data stream that follows it, 0 = none, and
 *            field 23, tx := flags:int8 [order:varlong origin:int64]: flags 0 = not atomic, bit 0 = atomic,
 *            bit 1 = primary)
 * RESULT  := chain path console timings credit value              (last hop to originator)
 * ERROR   := chain code:varint failure credit                      (any hop to originator; code: ChainErrorCode number)
 * REPLY   := chain hop:varint host value                           (preturn: any hop to originator)
 * QUIET   := chain credit                                          (a hop that sent replies is done)
 * WINDOW_UPDATE := chain hop:varint host kind:int8 replies:varint bytes:varlong want:varlong
 *                  (reply flow control; kind 0: the originator grants room to the stream (hop, host),
 *                  kind 1: the stream gives room back and, if want &gt; 0, waits for a reply of want bytes)
 * CANCEL  := chain origin:string budget                             (originator, then along the chain's trail)
 * HEARTBEAT := chain hop:varint host depth:varint (index:varint siblings:varint)*
 *              (the node holding a chain, to its top-level originator: the chain is alive on that branch)
 * PING    := ack:int8 payload:int64                                (connection health; ack 1 answers ack 0)
 * STREAM_DATA := stream:varlong data:bytes                         (a hop's data stream, sender to receiver)
 * STREAM_END  := stream:varlong total:varlong abort:string          (null abort: complete)
 * STREAM_CREDIT := stream:varlong bytes:varlong                     (receiver to sender: more room)
 * STREAM_CANCEL := stream:varlong message:string                    (receiver to sender: stop)
 * VOTE    := chain attempt:varint credit voter:address hop:varint yes:int8 why:string clock:varlong held:varlong
 *            (participant to originator, after a hop of an atomic chain)
 * DECIDE  := chain attempt:varint origin:string commit:int8 why:string (originator to participant)
 * DECIDE_ACK := chain attempt:varint node:string clock:varlong released:varlong (participant to originator)
 * WOUND   := chain attempt:varint node:string by:string             (participant to the victim's originator)
 * QUERY   := chain attempt:varint node:string                       (participant to originator: the decision?)
 * GOAWAY  := reason:int8                                          (the sender writes nothing more on the
 *            connection; reason 0: idle. Answered with a GOAWAY; see {@link GoAwayFrame})
 * address := node:string host:string port:varint
 * chain   := chainId:varlong secret:int64 int64                     (the originator checks the secret)
 * credit  := exponent:varint numerator:bytes                        (numerator / 2^exponent)
 * budget  := present:int8 [remainingNanos:varlong zigzag]          (0: no deadline; else nanoseconds left, &lt;= 0: expired)
 * failure := exceptionName message host hop:varint path details console timings fields
 * fields  := count:varint (tag:varint length:varint bytes)*        (unknown tags are skipped)
 * </pre>
 *
 * Frames after the HELLO carry the version the two nodes agreed on (the highest both speak). The
 * header of a REQUEST holds only rpcc's own types, so a receiver can always read it and report a
 * failure to decode the user values that follow to the chain's originator.
 */
public enum FrameType {
    HELLO(1), REQUEST(2), RESULT(3), ERROR(4), REPLY(5), QUIET(6), WINDOW_UPDATE(7), CANCEL(8), HEARTBEAT(9), PING(10),
    STREAM_DATA(11), STREAM_END(12), STREAM_CREDIT(13), STREAM_CANCEL(14), VOTE(15), DECIDE(16), DECIDE_ACK(17),
    WOUND(18), QUERY(19), GOAWAY(20);

    /** The protocol version this build speaks: the version byte of every frame after the HELLO. */
    public static final byte PROTOCOL_VERSION = 10;

    /**
     * The version byte of every HELLO, in this and every later protocol version: the HELLO's layout
     * (version range first) never changes, so nodes of different versions can read each other's.
     * (Versions 1 and 2 had no range: their HELLO carried their own version in this byte.)
     */
    public static final byte HELLO_VERSION = 3;

    private final byte wire;

    FrameType(int wire) {
        this.wire = (byte) wire;
    }

    /** The type byte. */
    public byte wire() {
        return wire;
    }

    /** The type for {@code wire}, or {@code null}. */
    public static FrameType fromWire(byte wire) {
        return switch (wire) {
            case 1 -> HELLO;
            case 2 -> REQUEST;
            case 3 -> RESULT;
            case 4 -> ERROR;
            case 5 -> REPLY;
            case 6 -> QUIET;
            case 7 -> WINDOW_UPDATE;
            case 8 -> CANCEL;
            case 9 -> HEARTBEAT;
            case 10 -> PING;
            case 11 -> STREAM_DATA;
            case 12 -> STREAM_END;
            case 13 -> STREAM_CREDIT;
            case 14 -> STREAM_CANCEL;
            case 15 -> VOTE;
            case 16 -> DECIDE;
            case 17 -> DECIDE_ACK;
            case 18 -> WOUND;
            case 19 -> QUERY;
            case 20 -> GOAWAY;
            default -> null;
        };
    }
}
