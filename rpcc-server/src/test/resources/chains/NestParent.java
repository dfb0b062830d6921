import io.rpcc.core.*;

/**
 * The top-level chain of SubChainTest: the first hop's result (computed by sub-chains, perhaps)
 * is tagged at server state "tagAt", whose result ends the chain.
 */
public class NestParent implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        ChainContext.current().console().println("parent got " + result);
        return NextHop.callThenEnd(state.get("tagAt", String.class), "tag", result);
    }
}
