import io.rpcc.core.*;
import io.rpcc.examples.copy.Block;

/**
 * Chain copy of one block (paper 4.1): runs at the source server after its read, and sends the
 * bytes straight to the destination server's write; the write's result (the byte count) ends the
 * chain and goes to the client. The data never passes through the client.
 */
public class CopyBlock implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        byte[] data = (byte[]) result;
        Block to = new Block(state.get("to", String.class), state.get("offset", Long.class), data.length, data);
        return NextHop.callThenEnd(state.get("destination", String.class), "write", to);
    }
}
