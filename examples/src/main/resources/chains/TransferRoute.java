import io.rpcc.core.*;
import io.rpcc.examples.atomic.Transfer;

/**
 * An atomic bank transfer: after the debit at the paying bank, the clearing house records it, then the
 * receiving bank credits it, whose result ends the chain. The clearing house, and the functions to
 * run there and at the receiving bank, are named in the state.
 */
public class TransferRoute implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String step = state.get("step", String.class);
        Transfer t = (Transfer) result;
        if ("debited".equals(step)) {
            return NextHop.call(state.get("clearing", String.class), state.get("clear", String.class), t,
                    state.with("step", "cleared"));
        }
        return NextHop.callThenEnd(t.toBank(), state.get("credit", String.class), t);
    }
}
