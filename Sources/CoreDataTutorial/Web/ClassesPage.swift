/// The HTML page of the classes-and-students window: the classes (the selected one marked),
/// the selected class's students and monitor, and forms for every action. Plain HTML forms
/// (no script), so that any browser, and a WebDriver test, drives it.
enum ClassesPage {
    static func html(_ state: ClassesWindow.State) -> String {
        let selectedClassID = state.selectedClass.flatMap { state.classIDs.indices.contains($0) ? escape(state.classIDs[$0].absoluteString) : nil } ?? ""
        var page = """
        <!DOCTYPE html>
        <html lang="zh">
        <head><meta charset="utf-8"><title>Classes and students</title>
        <style>
        body { font-family: sans-serif; margin: 2em; display: grid; grid-template-columns: 1fr 1fr; gap: 2em; }
        li.selected button.select { font-weight: bold; }
        form { display: inline; }
        </style></head>
        <body data-version="\(state.version)">
        <section><h1>Classes</h1>
        <ul id="classes">

        """
        for (index, name) in state.classes.enumerated() {
            let selected = index == state.selectedClass
            page += """
            <li\(selected ? " class=\"selected\"" : "")><form method="post" action="/classes/select">\
            <input type="hidden" name="object" value="\(escape(state.classIDs[index].absoluteString))">\
            <button class="select" id="class-\(index)">\(escape(name))</button></form></li>

            """
        }
        page += """
        </ul>
        <form id="add-class" method="post" action="/classes/add">\
        <input id="class-name" name="name" placeholder="\(escape(ClassesModel.defaultClassName))">\
        <button id="add-class-button">Add class</button></form>
        <form method="post" action="/classes/remove"><input type="hidden" name="object" value="\(selectedClassID)">\
        <button id="remove-class-button"\(state.selectedClass == nil ? " disabled" : "")>Remove class</button></form>
        </section>
        <section><h1>Students of <span id="selected-class">\(state.selectedClass.map { escape(state.classes[$0]) } ?? "")</span></h1>
        <p>Monitor: <span id="monitor">\(state.monitor.map(escape) ?? "none")</span></p>
        <ul id="students">

        """
        for (index, name) in state.students.enumerated() {
            page += """
            <li><span class="student-name" id="student-\(index)">\(escape(name))</span> \
            <form method="post" action="/monitor"><input type="hidden" name="object" value="\(escape(state.studentIDs[index].absoluteString))">\
            <button id="monitor-\(index)">Make monitor</button></form> \
            <form method="post" action="/students/remove"><input type="hidden" name="object" value="\(escape(state.studentIDs[index].absoluteString))">\
            <button id="remove-student-\(index)">Remove</button></form></li>

            """
        }
        page += """
        </ul>
        <form id="add-student" method="post" action="/students/add"><input type="hidden" name="object" value="\(selectedClassID)">\
        <input id="student-name" name="name" placeholder="\(escape(ClassesModel.defaultStudentName))">\
        <button id="add-student-button"\(state.selectedClass == nil ? " disabled" : "")>Add student</button></form>
        </section>
        </body></html>

        """
        return page
    }

    /// `text` with HTML's special characters escaped.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
