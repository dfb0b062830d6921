package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.HopTiming;
import io.rpcc.core.spi.EngineSpi;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;
import java.util.function.BiConsumer;
import java.util.function.IntUnaryOperator;

/**
 * A chain's hop timings as a hop receives and passes them on: those it received kept as the bytes
 * they arrived in (checked, not decoded), those added here as records. A hop that only forwards
 * writes the received bytes out again as they are and appends its own timing, instead of decoding a
 * record for every earlier hop and encoding it again (which made a chain's timings cost O(n²) over
 * n hops). The received timings are decoded the first time something reads them (an error report,
 * the originator's result), once. A change other than an append (a removal, a set) decodes them
 * first; the list then holds records only.
 *
 * <p>Not thread-safe, like the {@code ArrayList} it stands in for; its first decode is safe to race
 * (each reader decodes the same records).
 */
@EngineSpi
public final class CarriedTimings extends AbstractList<HopTiming> implements RandomAccess {
    private static final byte[] NONE = new byte[0];

    /** The received timings, as encoded (without their count). */
    private byte[] encoded;
    /** How many timings {@link #encoded} holds. */
    private int carried;
    /** {@link #encoded} decoded, or {@code null} until it is read. */
    private volatile List<HopTiming> decoded;
    /** The timings added since (after the received ones). */
    private final List<HopTiming> added;

    private CarriedTimings(byte[] encoded, int carried, List<HopTiming> decoded, List<HopTiming> added) {
        this.encoded = encoded;
        this.carried = carried;
        this.decoded = decoded;
        this.added = added;
    }

    /**
     * A list that starts with {@code timings} and takes the timings a hop adds: the received ones
     * shared (not copied, not decoded) if {@code timings} is a {@code CarriedTimings}.
     */
    public static List<HopTiming> continuing(List<HopTiming> timings) {
        if (timings instanceof CarriedTimings c) {
            return new CarriedTimings(c.encoded, c.carried, c.decoded, new ArrayList<>(c.added));
        }
        return new ArrayList<>(timings);
    }

    /**
     * Reads {@code n} timings at {@code in}'s position, checking their layout (a string longer than
     * the frame, a byte no UTF-8 character starts with, a frame that ends among them are malformed),
     * and keeps their bytes.
     */
    static CarriedTimings read(Input in, int n) {
        if (n == 0) {
            return new CarriedTimings(NONE, 0, List.of(), new ArrayList<>());
        }
        IntUnaryOperator at = switch (in) {
            case BoundedBufferInput b -> b.bytes();
            case BoundedInput b -> b.bytes();
            default -> p -> in.getBuffer()[p];
        };
        int start = in.position();
        for (int i = 0; i < n; i++) {
            in.readVarInt(true);
            skipString(in, at);
            skipString(in, at);
            for (int f = 0; f < 4; f++) {
                in.readVarLong(true);
            }
            skipString(in, at);
        }
        byte[] bytes = new byte[in.position() - start];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) at.applyAsInt(start + i);
        }
        return new CarriedTimings(bytes, n, null, new ArrayList<>());
    }

    /**
     * Writes these timings as {@code count (timing)*}: the received bytes as they are, then the
     * added timings through {@code writeOne}.
     */
    void write(Output out, BiConsumer<Output, HopTiming> writeOne) {
        out.writeVarInt(size(), true);
        out.writeBytes(encoded);
        for (HopTiming t : added) {
            writeOne.accept(out, t);
        }
    }

    /**
     * Moves past a Kryo string (as Kryo's {@code readString} would read it) without making it: one
     * Kryo would misread, or that runs past the frame, is malformed ({@link KryoStrings}).
     */
    private static void skipString(Input in, IntUnaryOperator at) {
        try {
            in.setPosition(KryoStrings.end(in.position(), in.limit(), at));
        } catch (KryoException e) {
            throw new HopFailure(ChainErrorCode.MALFORMED_FRAME, "corrupt hop timings: " + e.getMessage());
        }
    }

    private List<HopTiming> received() {
        List<HopTiming> d = decoded;
        if (d == null) {
            Input in = new Input(encoded);
            List<HopTiming> out = new ArrayList<>(carried);
            for (int i = 0; i < carried; i++) {
                out.add(new HopTiming(in.readVarInt(true), in.readString(), in.readString(), in.readVarLong(true),
                        in.readVarLong(true), in.readVarLong(true), in.readVarLong(true), in.readString()));
            }
            d = List.copyOf(out);
            decoded = d;
        }
        return d;
    }

    /** Decodes the received timings into {@link #added}: the list then holds records only. */
    private void materialize() {
        if (carried > 0) {
            added.addAll(0, received());
            encoded = NONE;
            carried = 0;
            decoded = List.of();
        }
    }

    @Override
    public HopTiming get(int index) {
        return index < carried && index >= 0 ? received().get(index) : added.get(index - carried);
    }

    @Override
    public int size() {
        return carried + added.size();
    }

    @Override
    public boolean add(HopTiming timing) {
        modCount++;
        return added.add(timing);
    }

    @Override
    public void add(int index, HopTiming timing) {
        materialize();
        modCount++;
        added.add(index, timing);
    }

    @Override
    public HopTiming set(int index, HopTiming timing) {
        materialize();
        return added.set(index, timing);
    }

    @Override
    public HopTiming remove(int index) {
        materialize();
        modCount++;
        return added.remove(index);
    }
}
