package io.rpcc.core.internal.wire;

import io.rpcc.core.BranchId;
import io.rpcc.core.spi.EngineSpi;

/**
 * A QUIET frame: a hop that sent (or could have sent) partial replies has finished everything it
 * started, and returns the credit it kept. It travels on the connection that carried the hop's
 * replies, behind the last of them, so its arrival proves they all arrived. It names the hop
 * ({@code branch}, {@code hop}, {@code host}, as its replies and heartbeats do), so that the
 * originator stops expecting heartbeats from it.
 *
 * @param chainId the chain's number at its originator
 * @param secret the secret of the frames to the hop's reply-to node
 * @param credit the credit the hop kept
 * @param branch the hop's branch
 * @param hop the hop's number
 * @param host the node the hop ran at, or {@code null} if not known
 */
@EngineSpi
public record QuietFrame(long chainId, ChainSecret secret, Credit credit, BranchId branch, int hop, String host) {
    /** A QUIET frame that names no hop (the originator cannot tell which hop went quiet). */
    public QuietFrame(long chainId, ChainSecret secret, Credit credit) {
        this(chainId, secret, credit, BranchId.root(), 0, null);
    }

    /** The same frame under {@code other}, the secret of the node it is passed on to. */
    public QuietFrame withSecret(ChainSecret other) {
        return new QuietFrame(chainId, other, credit, branch, hop, host);
    }
}
