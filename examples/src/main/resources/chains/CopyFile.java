import io.rpcc.core.*;
import io.rpcc.examples.copy.Block;

/**
 * Copy of a whole file in one chain: runs at the source after its read and calls the destination's
 * write with the file's bytes (a value: the write starts when all of them have arrived), or, after a
 * streaming read, the destination's streaming write (it starts at once and writes the bytes as they
 * arrive). The write's result (the byte count) ends the chain.
 */
public class CopyFile implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String destination = state.get("destination", String.class);
        String to = state.get("to", String.class);
        if (result instanceof byte[] data) {
            return NextHop.callThenEnd(destination, "write", new Block(to, 0, data.length, data));
        }
        return NextHop.callThenEnd(destination, state.get("write", String.class), new Block(to, 0, 0, null));
    }
}
