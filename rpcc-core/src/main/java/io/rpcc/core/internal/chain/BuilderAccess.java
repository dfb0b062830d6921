package io.rpcc.core.internal.chain;

import io.rpcc.core.NodeBuilder;
import java.util.function.Function;

/**
 * Gives the node facades ({@code RpccServer.Builder}, {@code RpccClient.Builder}) the runtime
 * settings a {@link NodeBuilder} has collected, without a public or protected method of the builder
 * exposing the internal {@link Node.Settings} type. {@link NodeBuilder} registers the accessor when
 * its class is initialized (before any builder exists).
 */
public final class BuilderAccess {
    private static volatile Function<NodeBuilder<?>, Node.Settings> settings;

    private BuilderAccess() {
    }

    /** Called once, by {@link NodeBuilder}'s static initializer. */
    public static void register(Function<NodeBuilder<?>, Node.Settings> accessor) {
        if (settings != null) {
            throw new IllegalStateException("the NodeBuilder accessor is already registered");
        }
        settings = accessor;
    }

    /** The settings for a node built by {@code builder}. */
    public static Node.Settings settingsOf(NodeBuilder<?> builder) {
        return settings.apply(builder);
    }
}
