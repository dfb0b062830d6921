package io.rpcc.examples;

import io.rpcc.examples.aggregation.Aggregation;
import io.rpcc.examples.copy.Copy;
import io.rpcc.examples.copy.CopyUnderLoad;
import io.rpcc.examples.quickstart.Quickstart;
import io.rpcc.examples.statesize.StateSize;
import io.rpcc.examples.webmail.WebMail;
import java.util.Arrays;

/** Runs one example: {@code java -jar rpcc-examples.jar <example> [args]}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String example = args.length == 0 ? "quickstart" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        switch (example) {
            case "quickstart" -> Quickstart.main(rest);
            case "aggregation" -> Aggregation.main(rest);
            case "copy" -> Copy.main(rest);
            case "copy-load" -> CopyUnderLoad.main(rest);
            case "webmail" -> WebMail.main(rest);
            case "state-size" -> StateSize.main(rest);
            default -> {
                System.err.println("unknown example '" + example + "'; available: quickstart, aggregation, copy, copy-load, webmail, state-size");
                System.exit(2);
            }
        }
    }
}
