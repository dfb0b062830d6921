import io.rpcc.core.*;

/**
 * A sub-chain's chaining function that fails whatever its result (SubChainFailureTest): a failure
 * of the level that this sub-chain is, where the function runs.
 */
public class ThrowingSub implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        throw new IllegalStateException("chaining function of the sub-chain started at " + state.get("at")
                + " refuses " + result + " at " + ChainContext.current().node());
    }
}
