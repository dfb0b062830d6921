package io.rpcc.core;

/**
 * What the server that starts a {@link SubChain} does when the sub-chain fails (paper 3.8): a
 * failure inside a sub-chain goes first to the node that created it, where this handler, registered
 * with {@link SubChain#onFailure}, decides. It runs on that server's executor (never on an event
 * loop), with no thread having waited for the sub-chain, and gets the failure as the typed
 * exception the originator would see (its {@link ChainException#hop() hop}, {@link ChainException#host()
 * host} and {@link ChainException#path() path} are those of the hop that failed).
 *
 * <pre>{@code
 * .service("write", block -> SubChain.to("primary", "store").params(block)
 *         .onFailure(failure -> failure instanceof HopUnreachableException
 *                 ? SubChainRecovery.recover(SubChain.to("backup", "store").params(block)) // try the backup
 *                 : SubChainRecovery.passOn()))
 * }</pre>
 *
 * <p>It either recovers, with a value that becomes the result of the service function that started
 * the sub-chain (the parked chaining function runs with it and the chain goes on; a value that is
 * itself a {@code SubChain} starts that one instead), or passes the failure on: to the creator of
 * the enclosing sub-chain if there is one, else to the chain's originator, unchanged. A handler that
 * throws fails the chain with a {@link ServiceFunctionException} naming the creator's hop and server.
 */
@FunctionalInterface
public interface SubChainFailureHandler {
    /**
     * Decides what becomes of {@code failure}, the failure of the sub-chain this handler was
     * registered with: {@link SubChainRecovery#recover} or {@link SubChainRecovery#passOn()}.
     */
    SubChainRecovery handle(ChainException failure) throws Exception;
}
