// Allocations through a lambda, a method reference and string concatenation, all of which go
// through invokedynamic: the first execution of each call site links it (bootstrap methods, class
// loading, generated classes), which the agent must report as VM-internal, while the lambdas'
// own allocations are the program's: n int[] in each lambda.
import java.util.function.IntFunction;

public class Lambdas {
    static int[] make(int n) {
        return new int[n];
    }

    static long work(int n) {
        IntFunction<int[]> lambda = k -> new int[k];
        IntFunction<int[]> reference = Lambdas::make;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += lambda.apply(i).length + reference.apply(i).length;
            String text = "x" + i;
            sum += text.length();
        }
        return sum;
    }

    public static void main(String[] args) {
        System.out.println(work(Integer.parseInt(args[0])));
    }
}
