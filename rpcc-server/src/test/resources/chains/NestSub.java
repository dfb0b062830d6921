import io.rpcc.core.*;

/**
 * The chaining function of SubChainTest's sub-chains (the creating server's logic): the sub-chain's
 * first result is tagged at the server that created the sub-chain (state "at"), whose result ends
 * the sub-chain.
 */
public class NestSub implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        if (state.get("tagged") == null) {
            return NextHop.call(state.get("at", String.class), "tag", result, state.with("tagged", true));
        }
        return NextHop.end(result);
    }
}
