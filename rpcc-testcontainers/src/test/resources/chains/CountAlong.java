import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;

/** After the first node's "count", asks the state's "next" node to count "n" replies (or fail after them), and ends. */
public class CountAlong implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        return NextHop.callThenEnd((String) state.get("next", String.class), (String) state.get("function", String.class),
                state.get("n", Integer.class));
    }
}
