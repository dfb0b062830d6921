package io.rpcc.function.java.internal;

import io.rpcc.core.spi.SandboxViolation;
import io.rpcc.core.spi.WallClock;

/**
 * The resource budget of the sandboxed invocation running on the current (platform) thread.
 * Instrumented chaining-function code calls {@link #tick()} at every method entry and backward
 * jump, and {@link #array(int, int)} before allocating an array or asking the JDK for a sized
 * buffer. Every 16 ticks the budget compares the thread's allocated bytes and the elapsed time with
 * the limits, every 1024 ticks its CPU time (read only once the invocation has run for a
 * millisecond, see {@link #cpuOver}); over a limit, it throws a {@link SandboxViolation},
 * and keeps throwing it at every later check. Public only because instrumented classes live in
 * other class loaders.
 */
public final class Budget {
    /** The largest scale a BigDecimal may have, either way, when a sandboxed function uses it. */
    static final int MAX_SCALE = 100_000;
    /** The largest number of bits in a BigInteger (or a BigDecimal's unscaled value) a function may use. */
    static final long MAX_NUMBER_BITS = 1L << 21;
    /**
     * The largest operands (bits) of a call on numbers that costs more than linear time
     * (multiplication, division, roots, text): well under the default CPU limit even cold.
     */
    static final long OPERATION_BITS = 1L << 16;
    /** The largest operands (bits) of modular exponentiation and inversion, and of primality tests. */
    static final long MODULAR_BITS = 4096;
    /** The largest number (bits) whose next probable prime a function may look for. */
    static final long PRIME_SEARCH_BITS = 512;
    /** The largest operands (bits) of a greatest common divisor (quadratic in the JDK). */
    static final long GCD_BITS = 1L << 14;
    /** The largest result (bits) of {@code pow} on a number. */
    static final long POW_RESULT_BITS = 1L << 18;
    /** The longest text (chars) a number may be parsed from (parsing is quadratic in the JDK). */
    static final int MAX_NUMBER_CHARS = 20_000;
    /** The largest width or precision in a format string. */
    static final int MAX_FORMAT_WIDTH = 10_000;

    private static final ThreadLocal<Budget> CURRENT = new ThreadLocal<>();
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    private final long maxAllocatedBytes;
    private final long maxCpuNanos;
    private final long maxWallNanos;
    private final long startAllocated;
    /** When the invocation started on this thread ({@link System#nanoTime()}). */
    private final long startNanos;
    /** The CPU-time baseline (null: not read yet): see {@link #cpuOver}. */
    private volatile CpuBase cpuBase;

    /**
     * The thread's CPU time {@code cpu} read when the invocation had used at most {@code bound} ns
     * of it ({@code cpu < 0}: the JVM does not measure CPU time).
     */
    private record CpuBase(long cpu, long bound) {
    }

    private static final java.lang.invoke.VarHandle CPU_BASE;

    static {
        try {
            CPU_BASE = java.lang.invoke.MethodHandles.lookup().findVarHandle(Budget.class, "cpuBase", CpuBase.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final WallClock clock;
    private final Thread thread;
    private long ticks;
    private long arrayBytes;
    private volatile SandboxViolation violation;
    /** This invocation's own generator for {@code Math.random()}, made on its first use. */
    private java.util.SplittableRandom random;

    /**
     * A budget for an invocation running on the current platform thread from now, whose wall time
     * {@code clock} keeps (it may have started when the invocation was handed to this thread).
     */
    Budget(io.rpcc.core.SandboxLimits limits, WallClock clock) {
        this.maxAllocatedBytes = limits.allocatedBytes();
        this.maxCpuNanos = limits.cpuTime().toNanos();
        this.maxWallNanos = limits.wallTime().toNanos();
        this.startAllocated = MX.getCurrentThreadAllocatedBytes();
        this.startNanos = System.nanoTime();
        this.clock = clock;
        this.thread = Thread.currentThread();
    }

    /**
     * When the invocation's wall time ends ({@link System#nanoTime()}), as seen at {@code nowNanos}:
     * it moves on while the invocation waits for its chain's reader ({@link WallClock}).
     */
    long deadline(long nowNanos) {
        return clock.deadline(nowNanos);
    }

    /** The wall-time limit, in nanoseconds. */
    long maxWallNanos() {
        return maxWallNanos;
    }

    /** The invocation's wall clock. */
    WallClock clock() {
        return clock;
    }

    /** The violation of the wall-time limit. */
    SandboxViolation wallTimeViolation() {
        return new SandboxViolation("wall-time", "chaining function ran for more than " + maxWallNanos / 1_000_000 + " ms"
                + clock.besidesWaits(System.nanoTime()));
    }

    /** The thread the invocation runs on. */
    Thread thread() {
        return thread;
    }

    /** Checks the limits now (also called once after the invocation returns). */
    void check(boolean cpu) {
        if (violation != null) {
            return;
        }
        long allocated = MX.getCurrentThreadAllocatedBytes() - startAllocated;
        if (startAllocated >= 0 && allocated > maxAllocatedBytes) {
            violate(new SandboxViolation("memory", "chaining function allocated " + allocated
                    + " bytes, over the limit of " + maxAllocatedBytes));
        } else if (clock.elapsed(System.nanoTime()) > maxWallNanos) {
            violate(wallTimeViolation());
        } else if (cpu && cpuOver()) {
            violate(new SandboxViolation("cpu-time", "chaining function used more than "
                    + maxCpuNanos / 1_000_000 + " ms of CPU time"));
        }
    }

    /**
     * Whether the invocation has used more CPU time than its limit. A thread uses at most as much
     * CPU time as the time that passes while it runs (less its waits for the chain's reader), so an
     * invocation that has run for less than {@value #CPU_FREE_NANOS} ns (almost every one) cannot be
     * over any limit above that, and its CPU time is not read at all: the JVM's CPU-time read is a
     * system call, the dearest part of a short invocation. The first read (at a check past that
     * time, or by the {@link SandboxWatchdog} within its period) takes a baseline and counts the
     * time run until then as CPU time used, at most {@link #MAX_UNMEASURED_NANOS}: the watchdog
     * takes it within {@value SandboxWatchdog#PERIOD_MS} ms unless the whole JVM stalled (a
     * garbage-collection pause, the process descheduled on a loaded machine), and the time of a
     * stall, when the invocation's thread did not run either, must not count as its CPU time (it made
     * functions on loaded nodes fail their CPU limit having used next to none). So it overcounts by
     * at most that cap, and undercounts only CPU time used before a baseline the watchdog was kept
     * from taking for longer than the cap; the wall-time limit bounds that too.
     */
    private boolean cpuOver() {
        CpuBase base = cpuBase;
        if (base == null) {
            long bound = cpuBound(System.nanoTime());
            if (bound < CPU_FREE_NANOS && maxCpuNanos >= CPU_FREE_NANOS) {
                return false;
            }
            CPU_BASE.compareAndSet(this, null, new CpuBase(MX.getCurrentThreadCpuTime(),
                    Math.min(bound, MAX_UNMEASURED_NANOS)));
            base = cpuBase;
        }
        if (base.cpu() < 0) {
            return false; // not measurable: the wall-time limit still holds
        }
        return MX.getCurrentThreadCpuTime() - base.cpu() + base.bound() > maxCpuNanos;
    }

    /**
     * The most CPU time the invocation can have used by {@code nowNanos}: the time since it started
     * on this thread, less the time it waited in {@code preturn} for its chain's reader.
     */
    private long cpuBound(long nowNanos) {
        return clock.elapsed(nowNanos) - (startNanos - clock.started());
    }

    /**
     * Takes the CPU-time baseline from the watchdog's thread, if the invocation's own checks have
     * not ({@code threadCpu}: its thread's CPU time read just now), so that an invocation stuck in
     * one JDK call from its start is measured from early on too.
     */
    void baseCpu(long threadCpu, long nowNanos) {
        if (cpuBase == null) {
            CPU_BASE.compareAndSet(this, null, new CpuBase(threadCpu,
                    Math.min(Math.max(cpuBound(nowNanos), 0), MAX_UNMEASURED_NANOS)));
        }
    }

    /** Whether the CPU-time baseline has been taken. */
    boolean cpuBased() {
        return cpuBase != null;
    }

    /** How long an invocation runs before its CPU time is read (see {@link #cpuOver}). */
    static final long CPU_FREE_NANOS = 1_000_000;

    /**
     * The most time before the CPU-time baseline that counts as CPU time used (see {@link #cpuOver}):
     * five watchdog periods.
     */
    static final long MAX_UNMEASURED_NANOS = 5 * SandboxWatchdog.PERIOD_MS * 1_000_000;

    static void enter(Budget b) {
        CURRENT.set(b);
        b.clock.enter();
    }

    static void exit() {
        CURRENT.remove();
        WallClock.exit();
    }

    void violate(SandboxViolation v) {
        if (violation == null) {
            violation = v;
        }
    }

    SandboxViolation violation() {
        return violation;
    }

    /**
     * What {@code Math.random()} and {@code StrictMath.random()} become in a function: a draw from a
     * generator of this invocation's own, seeded from the JVM's strong source, so that no function
     * can learn the JVM's shared generator's state from its draws and predict another chain's.
     */
    public static double random() {
        Budget b = CURRENT.get();
        if (b == null) {
            return java.util.concurrent.ThreadLocalRandom.current().nextDouble();
        }
        if (b.random == null) {
            b.random = new java.util.SplittableRandom(SEEDS.nextLong());
        }
        return b.random.nextDouble();
    }

    private static final java.security.SecureRandom SEEDS = new java.security.SecureRandom();

    /** Called by instrumented code at method entries and backward jumps. */
    public static void tick() {
        Budget b = CURRENT.get();
        if (b == null) {
            return;
        }
        long t = ++b.ticks;
        if ((t & 15) == 0) {
            b.check((t & 1023) == 0);
        }
        if (b.violation != null) {
            throw b.violation;
        }
    }

    /**
     * Called by instrumented code before {@code new T[count]}: refuses an array that alone would
     * exceed the invocation's allocation limit, before the JVM tries to allocate it.
     */
    public static void array(int count, int elementBytes) {
        Budget b = CURRENT.get();
        if (b == null) {
            return;
        }
        if (b.violation != null) {
            throw b.violation;
        }
        long bytes = (long) Math.max(count, 0) * elementBytes;
        b.arrayBytes += bytes;
        if (bytes > b.maxAllocatedBytes || b.arrayBytes > b.maxAllocatedBytes) {
            b.violate(new SandboxViolation("memory", "chaining function allocated an array of " + count
                    + " elements (" + bytes + " bytes), over the limit of " + b.maxAllocatedBytes + " bytes"));
            throw b.violation;
        }
    }

    /** Refuses an allocation of {@code bytes} that the invocation's budget cannot hold. */
    private static void charge(long bytes, String what) {
        Budget b = CURRENT.get();
        if (b == null) {
            return;
        }
        if (b.violation != null) {
            throw b.violation;
        }
        b.arrayBytes += Math.max(bytes, 0);
        if (bytes > b.maxAllocatedBytes || b.arrayBytes > b.maxAllocatedBytes) {
            b.violate(new SandboxViolation("memory", "chaining function asked for " + what + " (" + bytes
                    + " bytes), over the limit of " + b.maxAllocatedBytes + " bytes"));
            throw b.violation;
        }
    }

    private static SandboxViolation refuse(String rule, String message) {
        SandboxViolation v = new SandboxViolation(rule, message);
        Budget b = CURRENT.get();
        if (b != null) {
            b.violate(v);
        }
        return v;
    }

    /** Guard of {@link String#repeat(int)}. */
    public static String repeat(String s, int count) {
        charge((long) s.length() * Math.max(count, 0) * 2, "a string of " + s.length() + " chars repeated " + count + " times");
        return s.repeat(count);
    }

    /** Guard of {@link StringBuilder#repeat(CharSequence, int)}. */
    public static StringBuilder repeat(StringBuilder sb, CharSequence s, int count) {
        charge(((long) sb.length() + (long) s.length() * Math.max(count, 0)) * 2, "a builder with " + s.length()
                + " chars repeated " + count + " times");
        return sb.repeat(s, count);
    }

    /** Guard of {@link StringBuilder#repeat(int, int)}. */
    public static StringBuilder repeat(StringBuilder sb, int codePoint, int count) {
        charge(((long) sb.length() + 2L * Math.max(count, 0)) * 2, "a builder with a character repeated " + count + " times");
        return sb.repeat(codePoint, count);
    }

    /** Guard of {@link String#indent(int)}. */
    public static String indent(String s, int n) {
        if (n > 0) {
            long lines = s.chars().filter(c -> c == '\n').count() + 1;
            charge((s.length() + lines * n) * 2, "a string indented by " + n + " on " + lines + " lines");
        }
        return s.indent(n);
    }

    /** Guard of {@link String#format(String, Object...)}. */
    public static String format(String format, Object[] args) {
        checkFormat(format, args);
        return String.format(format, args);
    }

    /** Guard of {@link String#format(java.util.Locale, String, Object...)}. */
    public static String format(java.util.Locale locale, String format, Object[] args) {
        checkFormat(format, args);
        return String.format(locale, format, args);
    }

    /** Guard of {@link String#formatted(Object...)}. */
    public static String formatted(String format, Object[] args) {
        checkFormat(format, args);
        return format.formatted(args);
    }

    /** Guard of {@link io.rpcc.core.VirtualConsole#printf(String, Object...)}. */
    public static void printf(io.rpcc.core.VirtualConsole console, String format, Object[] args) {
        checkFormat(format, args);
        console.printf(format, args);
    }

    /**
     * Refuses widths and precisions over {@link #MAX_FORMAT_WIDTH}, and numbers out of bounds. Only
     * the format specifiers' numbers count ({@code %[index$][flags][width][.precision]conversion}):
     * digits in the text around them, or an argument index, allocate nothing.
     */
    private static void checkFormat(String format, Object[] args) {
        if (format != null) {
            int n = format.length();
            int i = format.indexOf('%');
            while (i >= 0 && i < n) {
                i++;
                while (i < n && !Character.isLetter(format.charAt(i)) && format.charAt(i) != '%') {
                    if (format.charAt(i) < '0' || format.charAt(i) > '9') {
                        i++;
                        continue;
                    }
                    long number = 0;
                    while (i < n && format.charAt(i) >= '0' && format.charAt(i) <= '9') {
                        number = Math.min(number * 10 + (format.charAt(i) - '0'), Integer.MAX_VALUE);
                        i++;
                    }
                    boolean argumentIndex = i < n && format.charAt(i) == '$';
                    if (!argumentIndex && number > MAX_FORMAT_WIDTH) {
                        throw refuse("memory", "chaining function used a format width or precision over "
                                + MAX_FORMAT_WIDTH);
                    }
                }
                i = i + 1 < n ? format.indexOf('%', i + 1) : -1; // past the conversion, or %%
            }
        }
        if (args != null) {
            for (Object a : args) {
                number(a, OPERATION_BITS, "format");
            }
        }
    }

    private static final java.util.function.IntPredicate TICK_INT = i -> {
        tick();
        return true;
    };
    private static final java.util.function.LongPredicate TICK_LONG = i -> {
        tick();
        return true;
    };

    /** Guard of {@link java.util.stream.IntStream#range}: every element runs a budget check. */
    public static java.util.stream.IntStream range(int from, int to) {
        return java.util.stream.IntStream.range(from, to).filter(TICK_INT);
    }

    /** Guard of {@link java.util.stream.IntStream#rangeClosed}. */
    public static java.util.stream.IntStream rangeClosed(int from, int to) {
        return java.util.stream.IntStream.rangeClosed(from, to).filter(TICK_INT);
    }

    /** Guard of {@link java.util.stream.LongStream#range}. */
    public static java.util.stream.LongStream range(long from, long to) {
        return java.util.stream.LongStream.range(from, to).filter(TICK_LONG);
    }

    /** Guard of {@link java.util.stream.LongStream#rangeClosed}. */
    public static java.util.stream.LongStream rangeClosed(long from, long to) {
        return java.util.stream.LongStream.rangeClosed(from, to).filter(TICK_LONG);
    }

    /**
     * Called by instrumented code before a call {@code op} on a BigInteger or BigDecimal (receiver
     * and number arguments): refuses numbers too large for one JDK call to handle within the budget,
     * that is over {@link #MAX_NUMBER_BITS} bits or {@link #MAX_SCALE} (rule {@code memory}), or over
     * {@code bound} bits, the bound of an operation whose cost grows faster than its operands (rule
     * {@code cpu-time}).
     */
    public static void number(Object value, long bound, String op) {
        long bits;
        if (value instanceof java.math.BigInteger i) {
            bits = i.bitLength();
        } else if (value instanceof java.math.BigDecimal d) {
            if (Math.abs((long) d.scale()) > MAX_SCALE) {
                throw refuse("memory", "chaining function used a BigDecimal of scale " + d.scale()
                        + ", over the sandbox's bound of " + MAX_SCALE + " either way");
            }
            bits = d.unscaledValue().bitLength();
        } else {
            return;
        }
        if (bits > MAX_NUMBER_BITS) {
            throw refuse("memory", "chaining function used a " + value.getClass().getSimpleName() + " of " + bits
                    + " bits, over the sandbox's bound of " + MAX_NUMBER_BITS);
        }
        if (bits > bound) {
            throw refuse("cpu-time", "chaining function called " + op + " on a " + value.getClass().getSimpleName()
                    + " of " + bits + " bits, over the sandbox's bound of " + bound + " bits for that operation "
                    + "(its cost grows faster than the number)");
        }
    }

    /** Called by instrumented code before a number is parsed from {@code text}. */
    public static void numberText(String text) {
        numberCharCount(text == null ? 0 : text.length());
    }

    /** Called by instrumented code before a number is parsed from {@code chars}. */
    public static void numberChars(char[] chars) {
        numberCharCount(chars == null ? 0 : chars.length);
    }

    /** Called by instrumented code before a number is parsed from {@code count} chars. */
    public static void numberCharCount(int count) {
        if (count > MAX_NUMBER_CHARS) {
            throw refuse("cpu-time", "chaining function parsed a number from " + count + " chars, over the sandbox's "
                    + "bound of " + MAX_NUMBER_CHARS + " (parsing costs more than linear time)");
        }
    }

    /** Called by instrumented code before a BigInteger is made of {@code bytes}. */
    public static void numberBytes(byte[] bytes) {
        numberByteCount(bytes == null ? 0 : bytes.length);
    }

    /** Called by instrumented code before a BigInteger is made of {@code count} bytes. */
    public static void numberByteCount(int count) {
        if ((long) count * 8 > MAX_NUMBER_BITS) {
            throw refuse("memory", "chaining function made a BigInteger of " + count + " bytes, over the sandbox's "
                    + "bound of " + MAX_NUMBER_BITS + " bits");
        }
    }

    /** Called by instrumented code before a BigDecimal is made by rounding {@code value}. */
    public static void numberRounded(Object value) {
        number(value, OPERATION_BITS, "new BigDecimal");
    }

    /**
     * Called by instrumented code before {@code op(arg)} on a BigInteger or BigDecimal whose result
     * grows with {@code arg} (pow, shifts, bits, scales): refuses results out of bounds.
     */
    public static void amplify(Object value, int arg, String op) {
        long bits;
        long scale = 0;
        if (value instanceof java.math.BigInteger i) {
            bits = switch (op) {
                case "pow" -> (long) Math.max(i.bitLength(), 1) * Math.max(arg, 0);
                case "shiftLeft", "shiftRight" -> i.bitLength() + Math.abs((long) arg);
                case "setBit", "clearBit", "flipBit" -> Math.abs((long) arg);
                default -> 0;
            };
        } else if (value instanceof java.math.BigDecimal d) {
            long unscaled = Math.max(d.unscaledValue().bitLength(), 1);
            switch (op) {
                case "pow" -> {
                    bits = unscaled * Math.max(arg, 0);
                    scale = (long) d.scale() * arg;
                }
                case "setScale" -> {
                    bits = unscaled + Math.abs(((long) arg - d.scale()) * 4);
                    scale = arg;
                }
                case "movePointLeft", "scaleByPowerOfTen" -> {
                    bits = unscaled;
                    scale = (long) d.scale() - arg;
                }
                case "movePointRight" -> {
                    bits = unscaled;
                    scale = (long) d.scale() + arg;
                }
                default -> bits = 0;
            }
        } else {
            return;
        }
        if (bits > MAX_NUMBER_BITS || Math.abs(scale) > MAX_SCALE) {
            throw refuse("memory", "chaining function asked for " + op + "(" + arg + ") of a "
                    + value.getClass().getSimpleName() + ", whose result would be over the sandbox's bounds ("
                    + MAX_NUMBER_BITS + " bits, scale " + MAX_SCALE + ")");
        }
        if (op.equals("pow") && bits > POW_RESULT_BITS) {
            throw refuse("cpu-time", "chaining function asked for pow(" + arg + ") of a " + value.getClass().getSimpleName()
                    + ", a result of about " + bits + " bits, over the sandbox's bound of " + POW_RESULT_BITS
                    + " bits for that operation (its cost grows faster than the number)");
        }
    }
}
