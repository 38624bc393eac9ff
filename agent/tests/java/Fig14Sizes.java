// Prints the sizes the JVM reports for Fig14's objects, one `<type> <size>` line each:
// A, B and C, then `B[] <n> <size>` for every array length 0..2*mc that Fig14.m0(mc) allocates.
public class Fig14Sizes {
    public static void main(String[] args) {
        int mc = Integer.parseInt(args[0]);
        System.out.println("Fig14$A " + SizeProbe.sizeOf(new Fig14.A()));
        System.out.println("Fig14$B " + SizeProbe.sizeOf(new Fig14.B()));
        System.out.println("Fig14$C " + SizeProbe.sizeOf(new Fig14.C()));
        for (int n = 0; n <= 2 * mc; n++) {
            System.out.println("Fig14$B[] " + n + " " + SizeProbe.sizeOf(new Fig14.B[n]));
        }
    }
}
