package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;

/**
 * Kryo's class resolver, minus class names: a value on the rpcc wire names its class by a
 * registered id only. Kryo's own resolver reads a class name it is sent, loads the class (which
 * tells the peer whether it exists) and caches it without bound; this one refuses the name before
 * reading it, loading and caching nothing.
 */
final class RegisteredIdsOnly extends DefaultClassResolver {

    /** The failure for a value that names a class. */
    static final class ClassNameRefused extends KryoException {
        private static final long serialVersionUID = 1L;

        ClassNameRefused() {
            super("the value names a class instead of giving a registered type id; rpcc never resolves class "
                    + "names from the wire");
        }
    }

    /** The failure for a value whose type id this node has not registered. */
    static final class UnknownTypeId extends KryoException {
        private static final long serialVersionUID = 1L;

        private final int id;

        UnknownTypeId(int id) {
            super("type id " + id + " is not registered on this node");
            this.id = id;
        }

        int id() {
            return id;
        }
    }

    /** Reads a class id as Kryo does, failing with {@link UnknownTypeId} for an id that is not registered. */
    @Override
    public Registration readClass(Input input) {
        int start = input.position();
        int classId = input.readVarInt(true);
        if (classId != Kryo.NULL && classId != NAME + 2 && getRegistration(classId - 2) == null) {
            throw new UnknownTypeId(classId - 2);
        }
        input.setPosition(start);
        return super.readClass(input);
    }

    @Override
    protected Registration readName(Input input) {
        throw new ClassNameRefused();
    }

    @Override
    protected void writeName(Output output, Class type, Registration registration) {
        throw new KryoException("Class is not registered: " + type.getName());
    }
}
