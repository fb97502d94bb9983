from citecheck import command

command()
