// The seed tutorial (深入浅出 Cocoa 之 Core Data, part 2).
// PLACEHOLDER until the object graph lands: it says what it will do.
print("""
coredata-tutorial: not runnable yet.
This program will build the `Run` model in code (date, processID with validation SELF > 0),
open a store in ./CoreDataTutorial/, insert a Run for this process, save, and print the run
history sorted by date. It needs the object graph (managed objects, contexts and stores),
which has not landed yet; only the query language and the model exist so far.
""")
