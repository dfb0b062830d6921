package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * A WINDOW_UPDATE frame: per-chain flow control of partial replies. A {@linkplain ReplyStream reply
 * stream} is the replies of one hop at one node; the originator grants each stream room (a number of
 * replies and of bytes) before it may send, and never grants more than its reply buffer can hold
 * beside what it already holds.
 *
 * @param chain the chain (its number at the originator) and its secret
 * @param stream the reply stream this is about: the hop, and the node that runs it
 * @param grant {@code true}: from the originator to the stream's node, which may send {@code replies}
 *     more replies of at most {@code bytes} more bytes; {@code false}: from the stream's node to the
 *     originator, which gets back the room {@code replies} and {@code bytes} that the stream had left,
 *     and, if {@code wantBytes > 0}, learns that the stream waits for room for a reply of
 *     {@code wantBytes} bytes
 * @param replies replies granted or given back
 * @param bytes bytes granted or given back (a reply costs its whole frame, length field included)
 * @param wantBytes the size of the reply the stream waits to send, or 0 (always 0 in a grant)
 */
@EngineSpi
public record WindowUpdateFrame(ChainKey chain, ReplyStream stream, boolean grant, int replies, long bytes,
                                long wantBytes) implements FrameOfStream {
}
