import java.lang.instrument.Instrumentation;

// A java.lang.instrument agent that keeps the Instrumentation, so that programs run with
// -javaagent can ask the JVM for object sizes (Instrumentation.getObjectSize): the reference the
// membound agent's byte counts are checked against.
public class SizeProbe {
    static Instrumentation instrumentation;

    public static void premain(String options, Instrumentation inst) {
        instrumentation = inst;
    }

    public static long sizeOf(Object object) {
        return instrumentation.getObjectSize(object);
    }
}
