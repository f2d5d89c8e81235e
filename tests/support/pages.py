"""An HTML page parsed for the tests: its elements checked to close in order."""

from html.parser import HTMLParser


class Page(HTMLParser):
    """Parses a page, checking that every element closes in order."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self, page):
        super().__init__()
        self.open, self.errors, self.tags, self.attributes, self.data = [], [], [], [], []
        self.feed(page)
        self.close()
        self.errors += ["<%s> never closed" % tag for tag in self.open]

    def handle_starttag(self, tag, attributes):
        self.handle_startendtag(tag, attributes)
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attributes):
        self.tags.append(tag)
        self.attributes += attributes

    def handle_endtag(self, tag):
        if not self.open or self.open.pop() != tag:
            self.errors.append("</%s> closes nothing open" % tag)

    def handle_data(self, data):
        self.data.append(data)

    def values(self, name):
        return [value for key, value in self.attributes if key == name]
