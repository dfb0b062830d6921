package io.rpcc.observability.internal;

import io.micrometer.observation.transport.Propagator;
import io.rpcc.core.Metadata;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A chain's metadata as the carrier of a trace context: the tracing handlers write the context
 * ({@code traceparent}, {@code tracestate}, {@code b3}, baggage) into it through {@link #SETTER} and
 * read it through {@link #GETTER}. Metadata keys are lower case ({@code a-z 0-9 - _ .}): keys are
 * lower-cased both ways (HTTP header names, which propagators use, are case-insensitive), and an
 * entry whose key is still not valid, or that would make the metadata too large, is left out.
 */
public final class MetadataCarrier {
    /** Writes an entry into a carrier. */
    public static final Propagator.Setter<MetadataCarrier> SETTER = (carrier, key, value) -> {
        if (carrier != null) {
            carrier.set(key, value);
        }
    };

    /** Reads an entry of a chain's metadata (text values only). */
    public static final Propagator.Getter<Metadata> GETTER = MetadataCarrier::get;

    private Metadata metadata;

    /** A carrier that starts with {@code metadata}. */
    public MetadataCarrier(Metadata metadata) {
        this.metadata = metadata;
    }

    /** The metadata with what was written into it. */
    public Metadata metadata() {
        return metadata;
    }

    private void set(String key, String value) {
        String k = key.toLowerCase(Locale.ROOT);
        if (!Metadata.isValidKey(k)) {
            return;
        }
        try {
            metadata = metadata.with(k, value);
        } catch (RuntimeException tooLarge) { // MetadataTooLargeException: the chain goes on untraced past here
            // left out
        }
    }

    /** The text value of {@code key} (lower-cased) in {@code metadata}, or {@code null}. */
    static @Nullable String get(Metadata metadata, String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return metadata.contains(k) && !metadata.isBytes(k) ? metadata.get(k) : null;
    }
}
