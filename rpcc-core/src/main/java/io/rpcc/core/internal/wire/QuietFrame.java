package io.rpcc.core.internal.wire;

import io.rpcc.core.internal.wire.Credit;

/**
 * A QUIET frame: a hop that sent (or could have sent) partial replies has finished everything it
 * started, and returns the credit it kept. It travels on the connection that carried the hop's
 * replies, behind the last of them, so its arrival proves they all arrived.
 */
public record QuietFrame(long chainId, ChainSecret secret, Credit credit) {
}
