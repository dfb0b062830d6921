package io.rpcc.core.internal.chain;

import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.spi.EngineSpi;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Gives the node facades ({@code RpccServer.Builder}, {@code RpccClient.Builder}) the runtime
 * settings a {@link NodeBuilder} has collected, without a public or protected method of the builder
 * exposing the internal {@link Node.Settings} type. {@link NodeBuilder} registers the accessor when
 * its class is initialized (before any builder exists).
 */
@EngineSpi
public final class BuilderAccess {
    private static volatile Function<NodeBuilder<?>, Node.Settings> settings;
    private static volatile BiConsumer<NodeBuilder<?>, Node.SourceFetcher> fetchers;

    private BuilderAccess() {
    }

    /** Called once, by {@link NodeBuilder}'s static initializer. */
    public static void register(Function<NodeBuilder<?>, Node.Settings> accessor,
                                BiConsumer<NodeBuilder<?>, Node.SourceFetcher> fetcherSetter) {
        if (settings != null) {
            throw new IllegalStateException("the NodeBuilder accessor is already registered");
        }
        settings = accessor;
        fetchers = fetcherSetter;
    }

    /**
     * Makes the nodes {@code builder} builds fetch the sources of chaining functions they know only by
     * reference with {@code fetcher} (the facades: from the repository); a builder's nodes fetch none
     * otherwise.
     */
    public static void fetchSourcesWith(NodeBuilder<?> builder, Node.SourceFetcher fetcher) {
        fetchers.accept(builder, fetcher);
    }

    /** The settings for a node built by {@code builder}. */
    public static Node.Settings settingsOf(NodeBuilder<?> builder) {
        return settings.apply(builder);
    }
}
