package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.HopPath;
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
 * <p>The list is bounded ({@link HopPath#MAX_TIMINGS}): an append that makes it longer drops the
 * timing after the first {@link HopPath#KEPT_AT_EACH_END}, so it keeps the timings of a chain's
 * first and last hops, and what a hop carries on does not grow with the hop's number. A received
 * timing dropped so is left out of the bytes written (a range of them, as the dropped timings are
 * always the oldest of the last ones), not decoded.
 *
 * <p>Not thread-safe, like the {@code ArrayList} it stands in for; its first decode is safe to race
 * (each reader decodes the same records).
 */
@EngineSpi
public final class CarriedTimings extends AbstractList<HopTiming> implements RandomAccess {
    private static final byte[] NONE = new byte[0];

    private static final int[] NO_STARTS = {0};

    /** The received timings, as encoded (without their count). */
    private byte[] encoded;
    /** Where each received timing starts in {@link #encoded}, and (last) where they end. */
    private int[] starts;
    /** How many timings {@link #encoded} holds (those dropped since included). */
    private int carried;
    /** The received timings dropped since, by index in {@link #encoded}: from (inclusive) and to (exclusive). */
    private int dropFrom;
    private int dropTo;
    /** {@link #encoded} decoded (all of it), or {@code null} until it is read. */
    private volatile List<HopTiming> decoded;
    /** The timings added since (after the received ones). */
    private final List<HopTiming> added;

    private CarriedTimings(byte[] encoded, int[] starts, int carried, List<HopTiming> decoded, List<HopTiming> added) {
        this.encoded = encoded;
        this.starts = starts;
        this.carried = carried;
        this.decoded = decoded;
        this.added = added;
    }

    /**
     * A list that starts with {@code timings} and takes the timings a hop adds, bounded (see above):
     * the received ones shared (not copied, not decoded) if {@code timings} is a {@code CarriedTimings}.
     */
    public static List<HopTiming> continuing(List<HopTiming> timings) {
        if (timings instanceof CarriedTimings c) {
            CarriedTimings next = new CarriedTimings(c.encoded, c.starts, c.carried, c.decoded, new ArrayList<>(c.added));
            next.dropFrom = c.dropFrom;
            next.dropTo = c.dropTo;
            return next;
        }
        CarriedTimings next = new CarriedTimings(NONE, NO_STARTS, 0, List.of(), new ArrayList<>(timings));
        next.trim();
        return next;
    }

    /**
     * {@code timings} bounded as a chain carries them: itself if it holds at most
     * {@link HopPath#MAX_TIMINGS}, else its first and last {@link HopPath#KEPT_AT_EACH_END}.
     */
    public static List<HopTiming> bounded(List<HopTiming> timings) {
        if (timings.size() <= HopPath.MAX_TIMINGS) {
            return timings;
        }
        List<HopTiming> out = new ArrayList<>(HopPath.MAX_TIMINGS);
        out.addAll(timings.subList(0, HopPath.KEPT_AT_EACH_END));
        out.addAll(timings.subList(timings.size() - HopPath.KEPT_AT_EACH_END, timings.size()));
        return out;
    }

    /**
     * The timings {@code later} holds after those of {@code earlier}, a list it went on from (a split's
     * opening and one of its branches): those after {@code earlier}'s if {@code later} still starts with
     * them, else (it dropped some to stay bounded) those of hops after {@code earlier}'s last.
     */
    public static List<HopTiming> since(List<HopTiming> later, List<HopTiming> earlier) {
        int prefix = earlier.size();
        if (later.size() >= prefix && later.subList(0, prefix).equals(earlier)) {
            return later.subList(prefix, later.size());
        }
        int after = earlier.isEmpty() ? 0 : earlier.getLast().hop();
        List<HopTiming> out = new ArrayList<>();
        for (HopTiming t : later) {
            if (t.hop() > after) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * Reads {@code n} timings at {@code in}'s position, checking their layout (a string longer than
     * the frame, a byte no UTF-8 character starts with, a frame that ends among them are malformed),
     * and keeps their bytes.
     */
    static CarriedTimings read(Input in, int n) {
        if (n == 0) {
            return new CarriedTimings(NONE, NO_STARTS, 0, List.of(), new ArrayList<>());
        }
        IntUnaryOperator at = switch (in) {
            case BoundedBufferInput b -> b.bytes();
            case BoundedInput b -> b.bytes();
            default -> p -> in.getBuffer()[p];
        };
        int start = in.position();
        int[] starts = new int[n + 1];
        for (int i = 0; i < n; i++) {
            starts[i] = in.position() - start;
            in.readVarInt(true);
            skipString(in, at);
            skipString(in, at);
            for (int f = 0; f < 4; f++) {
                in.readVarLong(true);
            }
            skipString(in, at);
        }
        starts[n] = in.position() - start;
        byte[] bytes = new byte[in.position() - start];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) at.applyAsInt(start + i);
        }
        return new CarriedTimings(bytes, starts, n, null, new ArrayList<>());
    }

    /**
     * Writes these timings as {@code count (timing)*}: the received bytes as they are, then the
     * added timings through {@code writeOne}.
     */
    void write(Output out, BiConsumer<Output, HopTiming> writeOne) {
        out.writeVarInt(size(), true);
        out.writeBytes(encoded, 0, starts[dropFrom]);
        out.writeBytes(encoded, starts[dropTo], encoded.length - starts[dropTo]);
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
            List<HopTiming> kept = new ArrayList<>(received().subList(0, dropFrom));
            kept.addAll(received().subList(dropTo, carried));
            added.addAll(0, kept);
            encoded = NONE;
            starts = NO_STARTS;
            carried = 0;
            dropFrom = 0;
            dropTo = 0;
            decoded = List.of();
        }
    }

    /** How many received timings the list still holds. */
    private int kept() {
        return carried - (dropTo - dropFrom);
    }

    /** Drops the timing after the first {@link HopPath#KEPT_AT_EACH_END} while the list is too long. */
    private void trim() {
        while (size() > HopPath.MAX_TIMINGS) {
            int at = HopPath.KEPT_AT_EACH_END;
            if (at < kept()) {
                if (dropTo == dropFrom) {
                    dropFrom = at;
                    dropTo = at;
                }
                if (dropFrom == at) {
                    dropTo++;
                } else { // not the range dropped so far (cannot happen: every drop is at the same index)
                    materialize();
                    added.remove(at);
                }
            } else {
                added.remove(at - kept());
            }
        }
    }

    @Override
    public HopTiming get(int index) {
        int kept = kept();
        if (index < 0 || index >= kept) {
            return added.get(index - kept);
        }
        return received().get(index < dropFrom ? index : index + dropTo - dropFrom);
    }

    @Override
    public int size() {
        return kept() + added.size();
    }

    /** Appends {@code timing}, then drops the oldest of the last timings if the list is too long (see above). */
    @Override
    public boolean add(HopTiming timing) {
        modCount++;
        added.add(timing);
        trim();
        return true;
    }

    /** At the end, an append ({@link #add(HopTiming)}, bounded); elsewhere, an insertion. */
    @Override
    public void add(int index, HopTiming timing) {
        if (index == size()) {
            add(timing);
            return;
        }
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
