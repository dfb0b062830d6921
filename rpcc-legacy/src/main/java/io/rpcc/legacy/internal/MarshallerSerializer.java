package io.rpcc.legacy.internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A gRPC message in a chain: Kryo writes it as the bytes of its gRPC marshaller (for protobuf
 * messages, their protobuf encoding: a varint length, then the bytes) and reads it back with the
 * same marshaller. The message classes keep their own wire format, and rpcc needs to know nothing
 * of their fields; immutable, as protobuf messages are.
 *
 * @param <T> the message class
 */
public final class MarshallerSerializer<T> extends Serializer<T> {
    private final MethodDescriptor.Marshaller<T> marshaller;

    /** A serializer writing and reading through {@code marshaller}. */
    public MarshallerSerializer(MethodDescriptor.Marshaller<T> marshaller) {
        super(false, true);
        this.marshaller = marshaller;
    }

    @Override
    public void write(Kryo kryo, Output output, T message) {
        byte[] bytes;
        try (InputStream in = marshaller.stream(message)) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new KryoException("cannot encode " + message.getClass().getName() + " with its gRPC marshaller: " + e, e);
        }
        output.writeVarInt(bytes.length, true);
        output.writeBytes(bytes);
    }

    @Override
    public T read(Kryo kryo, Input input, Class<? extends T> type) {
        int length = input.readVarInt(true);
        if (length < 0) {
            throw new KryoException("a " + type.getName() + " message with a negative length " + length);
        }
        return marshaller.parse(new ByteArrayInputStream(input.readBytes(length)));
    }
}
