package io.rpcc.core.spi;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An immutable list whose elements are made the first time it is read, once: how the engine hands a
 * {@link io.rpcc.core.ChainResult} the hop timings a chain carried home as bytes, which only a
 * caller who reads them pays to decode ({@link io.rpcc.core.ChainResult} keeps such a list as it is,
 * where it copies any other). The list is {@link List#copyOf copied} from its source on first read,
 * so it is immutable whoever made it, and it never changes afterwards; the source must give the
 * same elements whenever it is asked (it is asked once, on whichever thread reads first). Like
 * {@link List#copyOf}, it holds no {@code null}.
 *
 * <p>For rpcc's own modules (the engine SPI), not for plug-ins or applications.
 *
 * @param <E> the elements
 */
@EngineSpi
public final class ReadLazily<E> extends AbstractList<E> implements RandomAccess {
    private @Nullable Supplier<? extends List<? extends E>> source; // guarded by this; dropped once read
    private volatile @Nullable List<E> elements;

    private ReadLazily(Supplier<? extends List<? extends E>> source) {
        this.source = source;
    }

    /** The list of what {@code source} gives, asked for the first time the list is read. */
    public static <E> List<E> of(Supplier<? extends List<? extends E>> source) {
        return new ReadLazily<>(source);
    }

    private List<E> elements() {
        List<E> e = elements;
        if (e == null) {
            synchronized (this) {
                e = elements;
                if (e == null) {
                    e = List.copyOf(source.get());
                    elements = e;
                    source = null;
                }
            }
        }
        return e;
    }

    @Override
    public E get(int index) {
        return elements().get(index);
    }

    @Override
    public int size() {
        return elements().size();
    }
}
