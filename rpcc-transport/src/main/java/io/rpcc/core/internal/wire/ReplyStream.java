package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * A reply stream: the partial replies of one hop at one node (part of a {@link ReplyFrame} and a
 * {@link WindowUpdateFrame}); the unit of reply flow control.
 *
 * @param hop the hop's number
 * @param host the node that runs the hop
 */
@EngineSpi
public record ReplyStream(int hop, String host) {
}
