package io.rpcc.core.internal.function;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FailureFields;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.wire.HopFailure;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a node and its function-runner processes ({@link FunctionRunnerMain}) say to each other over
 * the runner's standard input and output: length-prefixed frames (a 4-byte length, then the body).
 * Values (state, results, parameters) are encoded with the node's Kryo ({@code Serialization}), as
 * on the wire between nodes, so the application's registered types pass through.
 *
 * <p>The node sends a setup frame once, then one request per invocation; the runner answers a ready
 * frame once, then one response per request.
 */
final class RunnerProtocol {
    /** The largest frame either side accepts. */
    static final int MAX_FRAME = 64 << 20;
    static final byte OK = 0;
    static final byte FAILED = 1;

    private RunnerProtocol() {
    }

    /** Writes one frame. */
    static void writeFrame(DataOutputStream out, byte[] body, int length) throws IOException {
        out.writeInt(length);
        out.write(body, 0, length);
        out.flush();
    }

    /** Reads one frame; {@link EOFException} if the other side has gone. */
    static byte[] readFrame(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_FRAME) {
            throw new IOException("runner frame of " + n + " bytes, over the limit of " + MAX_FRAME);
        }
        byte[] body = new byte[n];
        in.readFully(body);
        return body;
    }

    /** Where the invocation runs in its chain, as the runner's {@code ChainContext} shows it. */
    record Where(String chainId, String originator, int hop, String node) {
    }

    /** One invocation. */
    record Request(ChainingFunctionSource source, Where where, ChainState state, Object result) {
    }

    /**
     * What an invocation did: its next hop, or its failure; the console lines and partial replies it
     * made (the node replays them into the chain); {@code retire} if the runner must not be used again.
     */
    record Response(NextHop next, HopFailure failure, List<String> console, List<Object> replies, boolean retire) {
    }

    static void writeRequest(Kryo kryo, Output out, Request r) {
        writeSource(out, r.source());
        out.writeString(r.where().chainId());
        out.writeString(r.where().originator());
        out.writeVarInt(r.where().hop(), true);
        out.writeString(r.where().node());
        writeState(kryo, out, r.state());
        kryo.writeClassAndObject(out, r.result());
    }

    static Request readRequest(Kryo kryo, Input in) {
        ChainingFunctionSource source = readSource(in);
        Where where = new Where(in.readString(), in.readString(), in.readVarInt(true), in.readString());
        ChainState state = readState(kryo, in);
        return new Request(source, where, state, kryo.readClassAndObject(in));
    }

    static void writeResponse(Kryo kryo, Output out, Response r) {
        out.writeBoolean(r.retire());
        out.writeVarInt(r.console().size(), true);
        r.console().forEach(out::writeString);
        out.writeVarInt(r.replies().size(), true);
        r.replies().forEach(v -> kryo.writeClassAndObject(out, v));
        if (r.failure() != null) {
            out.writeByte(FAILED);
            writeFailure(out, r.failure());
        } else {
            out.writeByte(OK);
            writeNext(kryo, out, r.next());
        }
    }

    static Response readResponse(Kryo kryo, Input in) {
        boolean retire = in.readBoolean();
        int lines = in.readVarInt(true);
        List<String> console = new ArrayList<>(Math.min(lines, 1024));
        for (int i = 0; i < lines; i++) {
            console.add(in.readString());
        }
        int n = in.readVarInt(true);
        List<Object> replies = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            replies.add(kryo.readClassAndObject(in));
        }
        if (in.readByte() == FAILED) {
            return new Response(null, readFailure(in), console, replies, retire);
        }
        return new Response(readNext(kryo, in), null, console, replies, retire);
    }

    static void writeFailure(Output out, HopFailure f) {
        out.writeString(f.code().name());
        out.writeString(f.exceptionName());
        out.writeString(f.getMessage());
        out.writeVarInt(f.details().size(), true);
        f.details().forEach(out::writeString);
        out.writeBoolean(f.fields().transientCondition());
        out.writeString(f.fields().sandboxRule());
    }

    static HopFailure readFailure(Input in) {
        ChainErrorCode code = ChainErrorCode.valueOf(in.readString());
        String exceptionName = in.readString();
        String message = in.readString();
        int n = in.readVarInt(true);
        List<String> details = new ArrayList<>(Math.min(n, 256));
        for (int i = 0; i < n; i++) {
            details.add(in.readString());
        }
        boolean transientCondition = in.readBoolean();
        String rule = in.readString();
        HopFailure f = new HopFailure(code, exceptionName, message, details,
                new FailureFields(false, rule, null, null, List.of()), null);
        return transientCondition ? TransientFailure.of(f) : f;
    }

    static void writeNext(Kryo kryo, Output out, NextHop next) {
        switch (next) {
            case NextHop.End e -> {
                out.writeByte(0);
                kryo.writeClassAndObject(out, e.result());
            }
            case NextHop.Call c -> {
                out.writeByte(1);
                writeCall(kryo, out, c);
            }
            case NextHop.Split s -> {
                out.writeByte(2);
                out.writeVarInt(s.branches().size(), true);
                s.branches().forEach(c -> writeCall(kryo, out, c));
                out.writeString(s.mergeServer());
                writeSource(out, s.mergeFunction());
                writeState(kryo, out, s.state());
            }
        }
    }

    static NextHop readNext(Kryo kryo, Input in) {
        byte kind = in.readByte();
        switch (kind) {
            case 0:
                return new NextHop.End(kryo.readClassAndObject(in));
            case 1:
                return readCall(kryo, in);
            case 2:
                int n = in.readVarInt(true);
                if (n < 1 || n > NextHop.Split.MAX_BRANCHES) {
                    throw new IllegalStateException("a split of " + n + " branches from a function runner");
                }
                List<NextHop.Call> branches = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    branches.add(readCall(kryo, in));
                }
                return new NextHop.Split(branches, in.readString(), readSource(in), readState(kryo, in));
            default:
                throw new IllegalStateException("unknown next hop kind " + kind + " from a function runner");
        }
    }

    private static void writeCall(Kryo kryo, Output out, NextHop.Call c) {
        out.writeString(c.server());
        out.writeString(c.serviceFunction());
        kryo.writeClassAndObject(out, c.params());
        writeSource(out, c.chainingFunction());
        writeState(kryo, out, c.state());
    }

    private static NextHop.Call readCall(Kryo kryo, Input in) {
        return new NextHop.Call(in.readString(), in.readString(), kryo.readClassAndObject(in), readSource(in),
                readState(kryo, in));
    }

    static void writeSource(Output out, ChainingFunctionSource s) {
        if (s.isSame()) {
            out.writeByte(0);
        } else if (s.isNone()) {
            out.writeByte(1);
        } else if (s.isReference()) {
            out.writeByte(2);
            out.writeString(s.id());
            out.writeString(s.repository());
            out.writeString(s.language() == null ? null : s.language().name());
        } else {
            out.writeByte(3);
            out.writeString(s.language().name());
            out.writeString(s.source());
        }
    }

    static ChainingFunctionSource readSource(Input in) {
        byte kind = in.readByte();
        return switch (kind) {
            case 0 -> ChainingFunctionSource.SAME;
            case 1 -> ChainingFunctionSource.NONE;
            case 2 -> {
                String id = in.readString();
                String repository = in.readString();
                in.readString(); // the language travels in the id
                yield ChainingFunctionSource.reference(id, repository);
            }
            case 3 -> ChainingFunctionSource.of(FunctionLanguage.valueOf(in.readString()), in.readString());
            default -> throw new IllegalStateException("unknown function source kind " + kind + " from a function runner");
        };
    }

    static void writeState(Kryo kryo, Output out, ChainState state) {
        out.writeVarInt(state.size(), true);
        for (Map.Entry<String, Object> e : state.asMap().entrySet()) {
            out.writeString(e.getKey());
            kryo.writeClassAndObject(out, e.getValue());
        }
    }

    static ChainState readState(Kryo kryo, Input in) {
        int n = in.readVarInt(true);
        Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            values.put(in.readString(), kryo.readClassAndObject(in));
        }
        return ChainState.fromMap(values);
    }
}
