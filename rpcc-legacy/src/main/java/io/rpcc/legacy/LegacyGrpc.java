package io.rpcc.legacy;

import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.TypeRegistry;
import io.rpcc.legacy.internal.CallPolicy;
import io.rpcc.legacy.internal.GrpcMethodFunction;
import io.rpcc.legacy.internal.MarshallerSerializer;
import io.rpcc.server.RpccServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A gRPC service's unary methods as service functions (paper section 3.5), registered on an rpcc
 * server that runs next to the gRPC server, without changing it.
 *
 * <pre>{@code
 * ServiceDescriptor inventory = InventoryGrpc.getServiceDescriptor();   // from the generated stub
 * TypeRegistry types = LegacyGrpc.registerTypes(TypeRegistry.builder(), inventory).build();
 * ManagedChannel channel = ManagedChannelBuilder.forAddress("localhost", 50051).usePlaintext().build();
 * RpccServer server = LegacyGrpc.wrap(inventory, channel)
 *         .alias("shop.Inventory/Reserve", "reserve")
 *         .identity(LegacyIdentity.fromChain().orToken(inventoryToken))
 *         .registerOn(RpccServer.builder("inventory").types(types))
 *         .build().start();
 * // a chain calls it like any service function: ChainCall.to("inventory", "shop.Inventory/Reserve")
 * }</pre>
 *
 * <p>Each unary method becomes service function {@code <service>/<method>} (its full name, e.g.
 * {@code shop.Inventory/Reserve}) and, if given, an {@linkplain Builder#alias alias}; streaming
 * methods are left out ({@link Builder#skipped()}). Methods the descriptor calls idempotent or safe
 * are registered as idempotent service functions (a retried chain calls them again rather than
 * replaying their outcome).
 *
 * <p><b>Messages.</b> The params must be the method's request message and the result is its
 * response message: they travel in the chain as themselves, serialized by Kryo with the method's own
 * marshaller (protobuf bytes for protobuf messages), once their classes are registered on every node
 * that sends or reads them ({@link #registerTypes}). To let the chain carry other values (records,
 * maps) instead, {@linkplain Builder#adapt adapt} a method's params and result on the wrapper's node.
 *
 * <p><b>The call.</b> Through the channel, with {@code ClientCalls.futureUnaryCall}; the hop's thread
 * (a virtual thread by default) waits for the response, since a service function returns its result.
 * The call carries the chain's deadline (capped by {@link Builder#timeout}) and the
 * {@link LegacyIdentity} headers; a cancelled chain cancels it. A status other than {@code OK} throws a
 * {@link LegacyCallException} naming the method, the status code and the hop.
 */
public final class LegacyGrpc {
    private LegacyGrpc() {
    }

    /** A wrapper for the unary methods of {@code service}, called through {@code channel}. */
    public static Builder wrap(ServiceDescriptor service, Channel channel) {
        return new Builder(service, channel);
    }

    /**
     * Registers the request and response message classes of every method of {@code services} in
     * {@code types}, each with a serializer that writes it with the method's own marshaller. A
     * class {@code types} holds already (from an earlier service, or registered by the application)
     * is left as it is. Do the same on every node
     * that sends or reads these messages: the client that starts the chain with a request message,
     * the wrapper's node, the node whose chaining function gets the response.
     *
     * <p>A method whose marshaller does not name its class (gRPC's
     * {@code MethodDescriptor.ReflectableMarshaller}, which protobuf marshallers are) is skipped:
     * register its classes yourself, e.g. with their own Kryo serializer.
     *
     * @return {@code types}
     * @throws IllegalArgumentException if a message class's name-derived type id is taken by another
     *     class of {@code types} (register one of them with an explicit id first)
     */
    public static TypeRegistry.Builder registerTypes(TypeRegistry.Builder types, ServiceDescriptor... services) {
        Set<Class<?>> seen = new HashSet<>();
        for (TypeRegistry.Registration r : types.build().registrations()) {
            seen.add(r.type());
        }
        for (ServiceDescriptor s : services) {
            for (MethodDescriptor<?, ?> m : s.getMethods()) {
                register(types, m.getRequestMarshaller(), seen);
                register(types, m.getResponseMarshaller(), seen);
            }
        }
        return types;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void register(TypeRegistry.Builder types, MethodDescriptor.Marshaller<?> marshaller, Set<Class<?>> seen) {
        if (marshaller instanceof MethodDescriptor.ReflectableMarshaller<?> r && seen.add(r.getMessageClass())) {
            Class type = r.getMessageClass();
            types.register(type, new MarshallerSerializer(marshaller));
        }
    }

    /** Configures which methods become which service functions, and how they call the legacy service. */
    public static final class Builder extends LegacyWrapperBuilder<Builder> {
        private final ServiceDescriptor service;
        private final Channel channel;
        private final Map<String, String> aliases = new HashMap<>();
        private final Map<String, Adapter<?, ?>> adapters = new HashMap<>();

        private record Adapter<Q, R>(Function<@Nullable Object, Q> params, Function<R, @Nullable Object> result) {
        }

        private Builder(ServiceDescriptor service, Channel channel) {
            this.service = Objects.requireNonNull(service, "service");
            this.channel = Objects.requireNonNull(channel, "channel");
        }

        /**
         * Also registers the method {@code fullMethodName} (e.g. {@code shop.Inventory/Reserve}) as
         * service function {@code alias}.
         *
         * @throws IllegalArgumentException if the service has no unary method of that name
         */
        public Builder alias(String fullMethodName, String alias) {
            unary(fullMethodName);
            aliases.put(fullMethodName, Objects.requireNonNull(alias, "alias"));
            return this;
        }

        /**
         * Lets the chain carry other values than {@code method}'s messages: {@code params} turns the
         * chain's params into the request, {@code result} the response into the hop's result (both
         * run on the wrapper's node, so only it needs the message classes).
         *
         * @throws IllegalArgumentException if the service has no unary method of that name
         */
        public <Q, R> Builder adapt(MethodDescriptor<Q, R> method, Function<@Nullable Object, Q> params,
                                    Function<R, @Nullable Object> result) {
            unary(method.getFullMethodName());
            adapters.put(method.getFullMethodName(), new Adapter<>(Objects.requireNonNull(params, "params"),
                    Objects.requireNonNull(result, "result")));
            return this;
        }

        private MethodDescriptor<?, ?> unary(String fullMethodName) {
            for (MethodDescriptor<?, ?> m : service.getMethods()) {
                if (m.getFullMethodName().equals(fullMethodName)) {
                    if (m.getType() != MethodDescriptor.MethodType.UNARY) {
                        throw new IllegalArgumentException("method " + fullMethodName + " is " + m.getType()
                                + ": only unary methods become service functions");
                    }
                    return m;
                }
            }
            List<String> names = new ArrayList<>();
            service.getMethods().forEach(m -> names.add(m.getFullMethodName()));
            throw new IllegalArgumentException("service " + service.getName() + " has no method " + fullMethodName
                    + " (it has: " + names + ")");
        }

        /** The service functions this wrapper registers, by name: each unary method and its alias. */
        public Map<String, ServiceFunction> functions() {
            Map<String, ServiceFunction> functions = new LinkedHashMap<>();
            for (MethodDescriptor<?, ?> m : service.getMethods()) {
                if (m.getType() != MethodDescriptor.MethodType.UNARY) {
                    continue;
                }
                functions.put(m.getFullMethodName(), function(m, m.getFullMethodName()));
                String alias = aliases.get(m.getFullMethodName());
                if (alias != null) {
                    functions.put(alias, function(m, alias));
                }
            }
            return functions;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private ServiceFunction function(MethodDescriptor<?, ?> m, String name) {
            Adapter a = adapters.get(m.getFullMethodName());
            return new GrpcMethodFunction(name, m, channel, new CallPolicy(identity(), timeout()),
                    a == null ? null : a.params(), a == null ? null : a.result());
        }

        /** The full names of the methods left out because they stream (client, server or both). */
        public List<String> skipped() {
            List<String> skipped = new ArrayList<>();
            for (MethodDescriptor<?, ?> m : service.getMethods()) {
                if (m.getType() != MethodDescriptor.MethodType.UNARY) {
                    skipped.add(m.getFullMethodName());
                }
            }
            return skipped;
        }

        /**
         * Registers every service function of {@link #functions()} on {@code server}, idempotent
         * where the method descriptor says it is idempotent or safe. The server must also know the
         * message classes: give it a registry filled by {@link LegacyGrpc#registerTypes}.
         *
         * @return {@code server}
         * @throws IllegalArgumentException if the server has a service function of one of these names
         */
        public RpccServer.Builder registerOn(RpccServer.Builder server) {
            Set<String> idempotent = new HashSet<>();
            for (MethodDescriptor<?, ?> m : service.getMethods()) {
                if (m.isIdempotent() || m.isSafe()) {
                    idempotent.add(m.getFullMethodName());
                    String alias = aliases.get(m.getFullMethodName());
                    if (alias != null) {
                        idempotent.add(alias);
                    }
                }
            }
            functions().forEach((name, f) -> {
                if (idempotent.contains(name)) {
                    server.idempotentService(name, f);
                } else {
                    server.service(name, f);
                }
            });
            return server;
        }
    }
}
