package io.rpcc.core.internal.wire;

/**
 * The frame types of the rpcc wire protocol, version {@link #PROTOCOL_VERSION} (version 2 added the
 * chain secret; a node refuses frames of any other version and closes the connection).
 *
 * <pre>
 * frame   := length:int32 (bytes that follow, big-endian) version:int8 type:int8 payload
 * HELLO   := node host port:varint maxFrameSize:varint           (first frame each way)
 * REQUEST := header credit params:value state                      (run a hop; the header starts with chain)
 * RESULT  := chain path console timings credit value              (last hop to originator)
 * ERROR   := chain code:varint failure credit                      (any hop to originator)
 * REPLY   := chain hop:varint host value                           (preturn: any hop to originator)
 * QUIET   := chain credit                                          (a hop that sent replies is done)
 * WINDOW_UPDATE := chain hop:varint host kind:int8 replies:varint bytes:varlong want:varlong
 *                  (reply flow control; kind 0: the originator grants room to the stream (hop, host),
 *                  kind 1: the stream gives room back and, if want &gt; 0, waits for a reply of want bytes)
 * chain   := chainId:varlong secret:int64 int64                     (the originator checks the secret)
 * credit  := exponent:varint numerator:bytes                        (numerator / 2^exponent)
 * </pre>
 *
 * The header of a REQUEST holds only rpcc's own types, so a receiver can always read it and report
 * a failure to decode the user values that follow to the chain's originator.
 */
public enum FrameType {
    HELLO(1), REQUEST(2), RESULT(3), ERROR(4), REPLY(5), QUIET(6), WINDOW_UPDATE(7);

    /** The protocol version every frame carries. */
    public static final byte PROTOCOL_VERSION = 2;

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
            default -> null;
        };
    }
}
